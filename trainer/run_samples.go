package trainer

// placeRewards puts each row's outcome on its last real response token
// (reference §8, parse_reward_from_dataproto) and zeros elsewhere.
func placeRewards(respLen []int, width int, outcomes []float64) [][]float32 {
	r := make([][]float32, len(respLen))
	for i, n := range respLen {
		r[i] = make([]float32, width)
		if n > 0 {
			r[i][n-1] = float32(outcomes[i])
		}
	}
	return r
}
