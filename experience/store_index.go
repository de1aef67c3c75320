package experience

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// scored is one candidate of a search: an experience id and its
// similarity to the query.
type scored struct {
	id    string
	score float32
}

// better orders candidates: higher score first, then smaller id.
func (a scored) better(b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// topK scores every row of vecs (len(ids) rows of dim float32s, each
// L2-normalised) against q with one matrix-vector product, so that each
// score is a cosine similarity, and returns the k best, best first.
func topK(vecs []float32, ids []string, dim int, q []float32, k int) []scored {
	n := len(ids)
	if n == 0 || k <= 0 {
		return nil
	}
	scores := make([]float32, n)
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: n, Cols: dim, Stride: dim, Data: vecs[:n*dim]},
		blas32.Vector{N: dim, Inc: 1, Data: q},
		0, blas32.Vector{N: n, Inc: 1, Data: scores})
	k = min(k, n)
	// Keep the best k in order by insertion: k is small (a few), n is the
	// pool size, so this is O(n·k) with no allocation beyond the result.
	top := make([]scored, 0, k)
	for i, s := range scores {
		c := scored{id: ids[i], score: s}
		if len(top) == k && !c.better(top[k-1]) {
			continue
		}
		if len(top) < k {
			top = append(top, c)
		} else {
			top[k-1] = c
		}
		for j := len(top) - 1; j > 0 && top[j].better(top[j-1]); j-- {
			top[j], top[j-1] = top[j-1], top[j]
		}
	}
	return top
}
