package arena

import "math/rand/v2"

// Splits lays out the tasks of a game served as a training environment
// (avalon.Env, dipgame.Env): the sizes of its three splits, "train", "val"
// and "test", and the game seed of each task, a pure function of Seed,
// the split and the task's index. Seeds of different splits never meet:
// the top two bits carry the split.
type Splits struct {
	// Seed selects the task seeds.
	Seed uint64
	// Train, Val and Test are the sizes of the splits.
	Train, Val, Test int
}

// Size returns the number of tasks of split; ok is false for a split
// other than train, val and test.
func (s Splits) Size(split string) (n int, ok bool) {
	switch split {
	case "train":
		return s.Train, true
	case "val":
		return s.Val, true
	case "test":
		return s.Test, true
	}
	return 0, false
}

// TaskSeed returns the game seed of the k-th task of split; ok is false
// for a split other than train, val and test. k may lie beyond the
// split's size.
func (s Splits) TaskSeed(split string, k int) (seed uint64, ok bool) {
	var stream uint64
	switch split {
	case "train":
		stream = 1
	case "val":
		stream = 2
	case "test":
		stream = 3
	default:
		return 0, false
	}
	r := rand.New(rand.NewPCG(s.Seed, stream<<32|uint64(k)))
	return r.Uint64()>>2 | (stream-1)<<62, true
}
