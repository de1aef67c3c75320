package experience

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Embedder turns texts into vectors whose cosine similarity says how alike
// the texts are. Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts, each of
	// length Dimension. The caller owns the returned slices. A text the
	// embedder cannot place (an empty one, say) may get a zero vector,
	// which is similar to nothing.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies the model and its version. Vectors from embedders
	// of different names (or dimensions) are not comparable, so a
	// Workspace records both and refuses any other embedder.
	Name() string
	// Dimension is the length of every vector Embed returns; positive.
	Dimension() int
}

// MaxDimension bounds the dimension of an embedder a Workspace accepts,
// and so the size of a stored vector (256 KiB). The largest common
// embedding models use 4096.
const MaxDimension = 1 << 16

// DefaultLocalDimension is the dimension of a LocalEmbedder made with
// dimension 0.
const DefaultLocalDimension = 512

// LocalEmbedderName is the Name of every LocalEmbedder. The version suffix
// changes whenever the features or the hashing change, so a workspace
// filled by an older algorithm is refused rather than searched with
// incomparable vectors.
const LocalEmbedderName = "local-hash-ngram-v1"

// The 64-bit FNV-1a parameters (hash/fnv's, written out to hash without
// allocating).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// Feature weights of the local embedder: a whole word counts twice as much
// as each of its character trigrams.
const (
	localWordWeight    = 1.0
	localTrigramWeight = 0.5
)

// LocalEmbedder embeds text without any service or model file: it hashes
// word unigrams and character trigrams into a fixed number of buckets
// (feature hashing) and L2-normalises the result. It is deterministic, the
// same on every platform, and safe for concurrent use. It captures shared
// vocabulary and spelling, not meaning: "reset the router" is close to
// "router reset failed" but not to "restart the modem". For semantic
// retrieval use an OpenAIEmbedder against a real embedding model.
//
// The algorithm, exactly (LocalEmbedderName names this version):
//
//  1. The text is lower-cased (strings.ToLower).
//  2. Words are the maximal runs of letters and digits (unicode.IsLetter,
//     unicode.IsDigit); everything else separates them. A run of CJK
//     characters is one word, which its trigrams then cut up.
//  3. Each word w yields the feature "w:"+w with weight 1 and, for the
//     rune sequence "<"+w+">", every run of three consecutive runes t
//     yields the feature "t:"+t with weight 0.5 (so "a" gives "<a>" only).
//  4. Each feature's 64-bit FNV-1a hash h picks bucket h mod dimension and
//     a sign, + when the top bit of h is 0 and - otherwise; the signed
//     weights are summed per bucket (in float64, in text order).
//  5. The vector is divided by its Euclidean norm and rounded to float32.
//     A text with no letters or digits gives the zero vector.
type LocalEmbedder struct {
	dim int
}

var _ Embedder = (*LocalEmbedder)(nil)

// NewLocalEmbedder returns a local embedder of the given dimension; 0 or
// less means DefaultLocalDimension, and more than MaxDimension is capped to
// it. Larger dimensions collide less (two features share a bucket with
// probability 1/dimension) and cost proportionally more to store and
// compare.
func NewLocalEmbedder(dimension int) *LocalEmbedder {
	switch {
	case dimension <= 0:
		dimension = DefaultLocalDimension
	case dimension > MaxDimension:
		dimension = MaxDimension
	}
	return &LocalEmbedder{dim: dimension}
}

// Name returns LocalEmbedderName.
func (e *LocalEmbedder) Name() string { return LocalEmbedderName }

// Dimension returns the embedder's dimension.
func (e *LocalEmbedder) Dimension() int { return e.dim }

// Embed embeds each text as the type comment describes. It fails only
// when ctx is done.
func (e *LocalEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	acc := make([]float64, e.dim)
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("experience: local embedder: %w", err)
		}
		clear(acc)
		e.accumulate(acc, text)
		out[i] = normalized(acc)
	}
	return out, nil
}

// accumulate adds the signed, hashed features of text to acc.
func (e *LocalEmbedder) accumulate(acc []float64, text string) {
	text = strings.ToLower(text)
	var runes []rune
	var buf []byte
	add := func(kind byte, feature []byte, weight float64) {
		// FNV-1a, 64 bits, over kind, ':' and the feature.
		sum := uint64(fnvOffset64)
		sum = (sum ^ uint64(kind)) * fnvPrime64
		sum = (sum ^ ':') * fnvPrime64
		for _, c := range feature {
			sum = (sum ^ uint64(c)) * fnvPrime64
		}
		if sum>>63 != 0 {
			weight = -weight
		}
		acc[sum%uint64(len(acc))] += weight
	}
	for word := range strings.FieldsFuncSeq(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		add('w', []byte(word), localWordWeight)
		runes = append(runes[:0], '<')
		runes = append(runes, []rune(word)...)
		runes = append(runes, '>')
		for j := 0; j+3 <= len(runes); j++ {
			buf = buf[:0]
			for _, r := range runes[j : j+3] {
				buf = utf8.AppendRune(buf, r)
			}
			add('t', buf, localTrigramWeight)
		}
	}
}

// normalized returns v divided by its Euclidean norm, as float32; the zero
// vector stays zero.
func normalized(v []float64) []float32 {
	var sq float64
	for _, x := range v {
		sq += x * x
	}
	out := make([]float32, len(v))
	if sq == 0 {
		return out
	}
	inv := 1 / math.Sqrt(sq)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}

// checkVectors verifies that an embedder returned want vectors of its
// dimension with finite values, and returns them L2-normalised (in new
// slices), so that a dot product is a cosine similarity.
func checkVectors(vecs [][]float32, want, dim int, name string) ([][]float32, error) {
	if len(vecs) != want {
		return nil, fmt.Errorf("experience: embedder %q returned %d vectors for %d texts", name, len(vecs), want)
	}
	out := make([][]float32, len(vecs))
	acc := make([]float64, dim)
	for i, v := range vecs {
		if len(v) != dim {
			return nil, fmt.Errorf("experience: embedder %q returned a vector of dimension %d, want %d", name, len(v), dim)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("experience: embedder %q returned a non-finite value at [%d][%d]", name, i, j)
			}
			acc[j] = float64(x)
		}
		out[i] = normalized(acc)
	}
	return out, nil
}

// isZero reports whether every element of v is zero.
func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// encodeVector returns v as little-endian IEEE-754 float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector parses a stored vector of dimension dim, appending it to
// dst. The bytes are untrusted: a wrong length or a non-finite value is an
// error.
func decodeVector(dst []float32, b []byte, dim int) ([]float32, error) {
	if len(b) != 4*dim {
		return dst, fmt.Errorf("vector of %d bytes, want %d (dimension %d)", len(b), 4*dim, dim)
	}
	for i := range dim {
		x := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return dst, fmt.Errorf("vector value %d is not finite", i)
		}
		dst = append(dst, x)
	}
	return dst, nil
}
