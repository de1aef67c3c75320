package objective

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
)

// ComputeEpisodeGRPOAdvantages computes GRPO advantages for batches in
// which an episode yields several samples, one per model call (the
// per_call context manager), with every episode weighing the same. This
// is the decision on extension spec §1.9.8: the reference puts each call
// of each game into its task's group as a row of its own, so a game's
// weight in the group's mean and standard deviation, and in the loss,
// grows with its number of calls, and a long lost game outweighs a short
// won one.
//
// Here the group statistics are over episodes: each episode is one row
// with its score (the sum of its first sample's rewards; all of an
// episode's samples carry the episode's reward) in its task's group, and
// gets the GRPO advantage a_e of ComputeGRPOAdvantages (same epsilon,
// sample standard deviation, NoStdNorm and singleton rule). Each of its
// k_e call-samples then gets a_e / k_e on its loss-mask tokens, so that
// the episode's samples together weigh as much as one sample of a
// one-call episode: with loss_agg_mode seq-mean-token-mean every episode
// contributes equally to the policy-gradient term; with token-mean its
// weight is its mean number of tokens per call rather than its total.
// (The clipped loss is linear in the advantage for a positive factor, so
// scaling the advantage scales the sample's term; KL and entropy terms
// are not reweighted.)
//
// rewards and mask are B x L; groups ([B], in [0, numGroups)) is each
// row's task group and episodes ([B], in [0, numEpisodes)) its episode.
// An episode's rows must share one group and one score; otherwise the
// error wraps ErrShape.
func ComputeEpisodeGRPOAdvantages(backend backends.Backend, rewards, mask [][]float32, groups []int32, numGroups int, episodes []int32, numEpisodes int, cfg GRPOConfig) ([][]float32, error) {
	rows := len(rewards)
	if len(mask) != rows || len(groups) != rows || len(episodes) != rows {
		return nil, fmt.Errorf("%w: %d reward rows, %d mask rows, %d groups, %d episodes", ErrShape, rows, len(mask), len(groups), len(episodes))
	}
	if numEpisodes < 1 {
		return nil, fmt.Errorf("%w: numEpisodes %d < 1", ErrShape, numEpisodes)
	}
	score := make([]float32, numEpisodes)
	group := make([]int32, numEpisodes)
	calls := make([]int, numEpisodes)
	for i, e := range episodes {
		if e < 0 || int(e) >= numEpisodes {
			return nil, fmt.Errorf("%w: episode index %d of row %d not in [0, %d)", ErrShape, e, i, numEpisodes)
		}
		var s float32
		for _, v := range rewards[i] {
			s += v
		}
		if calls[e] == 0 {
			score[e], group[e] = s, groups[i]
		} else if group[e] != groups[i] || score[e] != s {
			return nil, fmt.Errorf("%w: episode %d has rows in groups %d and %d or with scores %v and %v", ErrShape, e, group[e], groups[i], score[e], s)
		}
		calls[e]++
	}
	epRewards := make([][]float32, numEpisodes)
	epMask := make([][]float32, numEpisodes)
	for e := range epRewards {
		if calls[e] == 0 {
			return nil, fmt.Errorf("%w: episode %d has no rows", ErrShape, e)
		}
		epRewards[e] = []float32{score[e]}
		epMask[e] = []float32{1}
	}
	epAdv, err := ComputeGRPOAdvantages(backend, epRewards, epMask, group, numGroups, cfg)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, rows)
	for i, e := range episodes {
		a := epAdv[e][0] / float32(calls[e])
		out[i] = make([]float32, len(mask[i]))
		for j, m := range mask[i] {
			out[i][j] = a * m
		}
	}
	return out, nil
}
