package toolworld

// rng is a SplitMix64 generator. Task generation uses it instead of
// math/rand so that a seed names the same tasks in every Go release: the
// algorithm and the bounded draws below are fixed here.
type rng struct{ state uint64 }

// newRNG derives a generator from several seed parts, mixing each in.
func newRNG(parts ...uint64) *rng {
	r := &rng{state: 0x243f6a8885a308d3}
	for _, p := range parts {
		r.state ^= p
		r.state = r.next()
	}
	return r
}

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n); n must be positive. Rejection
// sampling removes the modulo bias.
func (r *rng) intn(n int) int {
	bound := uint64(n)
	limit := ^uint64(0) - (^uint64(0) % bound)
	for {
		if v := r.next(); v < limit {
			return int(v % bound)
		}
	}
}

// float64 returns a uniform float in [0, 1) from the top 53 bits of one
// draw.
func (r *rng) float64() float64 { return float64(r.next()>>11) / (1 << 53) }

// pick returns a uniformly chosen element of xs, which must not be empty.
func (r *rng) pick(xs []string) string { return xs[r.intn(len(xs))] }

// shuffled returns a shuffled copy of xs (Fisher–Yates).
func (r *rng) shuffled(xs []string) []string {
	out := append([]string(nil), xs...)
	for i := len(out) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}
