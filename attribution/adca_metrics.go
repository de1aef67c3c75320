package attribution

import (
	"math"
	"slices"
	"strings"
)

// Metric keys of [ComputeADCA], the reference's own names (§7.8).
var (
	decoupleKeys = []string{
		"prm/decouple/attr_mean", "prm/decouple/attr_std",
		"prm/decouple/out_mean", "prm/decouple/out_std",
		"prm/decouple/outcome_share_last_mean", "prm/decouple/alpha_effective",
		"prm/decouple/sum_step_reward_sign_agree",
		"prm/decouple/pos_traj_prm_good_majority_rate", "prm/decouple/neg_traj_prm_bad_majority_rate",
	}
	allocationKeys = []string{
		"prm_allocation/consistent_weight_share_pos", "prm_allocation/consistent_weight_share_neg",
		"prm_allocation/unit_weight_mean", "prm_allocation/unit_weight_p95",
		"prm_allocation/degenerate_total_w_count",
		"prm_allocation/r_norm_group_mean_abs_p95", "prm_allocation/r_norm_group_std_p95",
		"prm_allocation/zscore_bad_group_cnt",
		"prm_allocation/good_bad_rnorm_gap_pos", "prm_allocation/good_bad_rnorm_gap_neg",
		"prm_allocation/rnorm_small_mag_ratio",
		"prm_allocation/pre_norm_sum_sign_agree", "prm_allocation/post_norm_sum_mean",
		"prm_allocation/outcome_share_last_mean", "prm_allocation/alpha_effective",
		"prm_allocation/sum_step_reward_sign_agree",
		"prm_allocation/pos_traj_prm_good_majority_rate", "prm_allocation/neg_traj_prm_bad_majority_rate",
	}
	alphaDecayKeys = []string{"prm/alpha_base", "prm/alpha_t", "prm/alpha_progress"}
)

// ADCAMetricKeys returns the metric keys [ComputeADCA] reports for scheme
// ("" means decouple), with the three prm/alpha_* keys of the cosine decay
// when decay is true. The slice is new on every call.
//
// Decouple (prm/decouple/...), over trajectories with K ≥ 1:
// attr_mean and attr_std (mean and population std of all z-scored process
// rewards z), out_mean and out_std (of the standardised outcomes ô),
// outcome_share_last_mean (mean of |ô| / (|ô| + α·Σ|z| + 1e-12)),
// alpha_effective (mean of α·Σ|z| / (O + 1e-12), O = |ô| for last_step,
// K·|ô| otherwise), sum_step_reward_sign_agree (share with
// (Σ step rewards > 0) == (outcome > 0.5)),
// pos_traj_prm_good_majority_rate (successes, outcome > 0.5, with more GOOD
// than BAD labels) and neg_traj_prm_bad_majority_rate (failures with at
// least as many BAD as GOOD). The majority rates align labels by padding
// with the outcome's success, as the reference does, although the rewards
// pad decouple labels with GOOD.
//
// Allocation (prm_allocation/...): consistent_weight_share_pos/neg (mean
// share of the total weight held by consistent steps), unit_weight_mean and
// unit_weight_p95 (of 1/W), degenerate_total_w_count (trajectories with
// W ≤ 1e-8), r_norm_group_mean_abs_p95 and r_norm_group_std_p95 (p95 over
// groups of |mean| and std of the z-scores), zscore_bad_group_cnt (groups
// with |mean| > 0.05 or std outside [0.8, 1.2]), good_bad_rnorm_gap_pos/neg
// (mean gap between GOOD and BAD z-scores, sign by outcome > 0),
// rnorm_small_mag_ratio (share of |z| < 0.05), pre_norm_sum_sign_agree,
// post_norm_sum_mean (mean per-trajectory sum of z), then
// outcome_share_last_mean, alpha_effective, sum_step_reward_sign_agree and
// the two majority rates as for decouple. A p95 is the element at index
// round-half-even(0.95·(n−1)) of the sorted values.
func ADCAMetricKeys(scheme ADCAScheme, decay bool) []string {
	keys := slices.Clone(decoupleKeys)
	if ADCAScheme(strings.ToLower(string(scheme))) == ADCAAllocation {
		keys = slices.Clone(allocationKeys)
	}
	if decay {
		keys = append(keys, alphaDecayKeys...)
	}
	return keys
}

// adcaMetricInput is what the metrics read: host copies of the graph's
// outputs, rows cut to K_i.
type adcaMetricInput struct {
	cfg              resolvedADCA
	alpha            float64
	numSteps         []int
	flags            [][]bool
	groups           []int32
	orm              []float64 // float32 outcome scores
	ormStd           []float64
	raw, norm, fused [][]float64
}

func newADCAMetricInput(p *adcaPrepared, o adcaOutputs, cfg resolvedADCA, alpha float64) adcaMetricInput {
	m := adcaMetricInput{
		cfg: cfg, alpha: alpha, numSteps: p.numSteps, flags: p.flags, groups: p.groups,
		orm: make([]float64, p.rows), ormStd: make([]float64, p.rows),
		raw: make([][]float64, p.rows), norm: make([][]float64, p.rows), fused: make([][]float64, p.rows),
	}
	for i := range p.rows {
		k := p.numSteps[i]
		m.orm[i], m.ormStd[i] = float64(o.orm[i]), o.ormStd[i]
		m.raw[i] = o.raw[i*p.maxK : i*p.maxK+k]
		m.norm[i] = o.norm[i*p.maxK : i*p.maxK+k]
		m.fused[i] = o.fused[i*p.maxK : i*p.maxK+k]
	}
	return m
}

// alignedGood counts the GOOD labels of row i aligned to its K steps,
// padding missing labels with pad.
func (m adcaMetricInput) alignedGood(i int, pad bool) (good []bool, nGood int) {
	good = make([]bool, m.numSteps[i])
	for j := range good {
		good[j] = pad
		if j < len(m.flags[i]) {
			good[j] = m.flags[i][j]
		}
		if good[j] {
			nGood++
		}
	}
	return good, nGood
}

// fusionStats accumulates the metrics both schemes share.
type fusionStats struct {
	shares, ratios, agree []float64
	posCnt, posGood       int
	negCnt, negBad        int
	lastStep              bool
}

func (s *fusionStats) add(m adcaMetricInput, i int) {
	k := m.numSteps[i]
	var aAbs float64
	for _, z := range m.norm[i] {
		aAbs += math.Abs(m.alpha * z)
	}
	oLast := math.Abs(m.ormStd[i])
	oAbs := oLast
	if !s.lastStep {
		oAbs = float64(k) * oLast
	}
	s.shares = append(s.shares, oLast/(oLast+aAbs+1e-12))
	s.ratios = append(s.ratios, aAbs/(oAbs+1e-12))
	success := m.orm[i] > 0.5
	var sum float64
	for _, r := range m.fused[i] {
		sum += r
	}
	s.agree = append(s.agree, b2f((sum > 0) == success))
	_, nGood := m.alignedGood(i, success)
	goodMajority := nGood > k-nGood
	if success {
		s.posCnt++
		if goodMajority {
			s.posGood++
		}
	} else {
		s.negCnt++
		if !goodMajority {
			s.negBad++
		}
	}
}

func (s *fusionStats) put(metrics map[string]float64, prefix string) {
	metrics[prefix+"outcome_share_last_mean"] = meanOrZero(s.shares)
	metrics[prefix+"alpha_effective"] = meanOrZero(s.ratios)
	metrics[prefix+"sum_step_reward_sign_agree"] = meanOrZero(s.agree)
	metrics[prefix+"pos_traj_prm_good_majority_rate"] = float64(s.posGood) / float64(max(1, s.posCnt))
	metrics[prefix+"neg_traj_prm_bad_majority_rate"] = float64(s.negBad) / float64(max(1, s.negCnt))
}

func decoupleMetrics(m adcaMetricInput) map[string]float64 {
	const prefix = "prm/decouple/"
	s := fusionStats{lastStep: m.cfg.orm == ORMLastStep}
	var attr, out []float64
	for i, k := range m.numSteps {
		if k == 0 {
			continue
		}
		attr = append(attr, m.norm[i]...)
		out = append(out, m.ormStd[i])
		s.add(m, i)
	}
	metrics := make(map[string]float64, len(decoupleKeys)+len(alphaDecayKeys))
	metrics[prefix+"attr_mean"], metrics[prefix+"attr_std"] = meanStd32(attr)
	metrics[prefix+"out_mean"], metrics[prefix+"out_std"] = meanStd32(out)
	s.put(metrics, prefix)
	return metrics
}

func allocationMetrics(m adcaMetricInput) map[string]float64 {
	const prefix = "prm_allocation/"
	const (
		meanTol      = 0.05 // zscore_mean_tol
		stdTol       = 0.2  // zscore_std_tol
		smallMagnitu = 0.05 // small_mag_threshold
	)
	c := m.cfg
	var unitWeights, posShares, negShares, preAgree []float64
	degenerate := 0
	// Process-reward bookkeeping, per trajectory with steps.
	for i, k := range m.numSteps {
		if k == 0 {
			continue
		}
		success := m.orm[i] > 0.5
		_, nGood := m.alignedGood(i, success)
		nBad := k - nGood
		wGood, wBad, sign := c.negUnconsist, c.consistent, -1.0
		if success {
			wGood, wBad, sign = c.consistent, c.posUnconsistent, 1.0
		}
		total := float64(nGood)*wGood + float64(nBad)*wBad
		unit := 0.0
		if total <= ADCAEpsilon {
			degenerate++
		} else {
			unit = 1 / total
			if success {
				posShares = append(posShares, float64(nGood)*wGood/total)
			} else {
				negShares = append(negShares, float64(nBad)*wBad/total)
			}
		}
		unitWeights = append(unitWeights, unit)
		var rawSum float64
		for _, v := range m.raw[i] {
			rawSum += v
		}
		preAgree = append(preAgree, b2f(rawSum*sign > 0))
	}

	// The z-scores: per-group checks, GOOD/BAD separation, magnitudes.
	var order []int32
	groupVals := make(map[int32][]float64)
	var absVals, gapPos, gapNeg, postSums []float64
	for i, k := range m.numSteps {
		if k == 0 {
			continue
		}
		g := m.groups[i]
		if _, ok := groupVals[g]; !ok {
			order = append(order, g)
		}
		groupVals[g] = append(groupVals[g], m.norm[i]...)
		var good, bad []float64
		flags, _ := m.alignedGood(i, m.orm[i] > 0.5)
		var sum float64
		for j, v := range m.norm[i] {
			absVals = append(absVals, math.Abs(v))
			sum += v
			if flags[j] {
				good = append(good, v)
			} else {
				bad = append(bad, v)
			}
		}
		postSums = append(postSums, sum)
		if len(good) > 0 && len(bad) > 0 {
			mg, _ := meanStd32(good)
			mb, _ := meanStd32(bad)
			if m.orm[i] > 0 { // the reference's default threshold here is 0
				gapPos = append(gapPos, f32(mg-mb))
			} else {
				gapNeg = append(gapNeg, f32(mb-mg))
			}
		}
	}
	var groupMeanAbs, groupStd []float64
	badGroups := 0
	for _, g := range order {
		mean, std := meanStd32(groupVals[g])
		groupMeanAbs = append(groupMeanAbs, math.Abs(mean))
		groupStd = append(groupStd, std)
		if math.Abs(mean) > meanTol || std < 1-stdTol || std > 1+stdTol {
			badGroups++
		}
	}
	small := 0
	for _, v := range absVals {
		if v < smallMagnitu {
			small++
		}
	}

	s := fusionStats{lastStep: c.orm == ORMLastStep}
	for i, k := range m.numSteps {
		if k > 0 {
			s.add(m, i)
		}
	}
	metrics := make(map[string]float64, len(allocationKeys)+len(alphaDecayKeys))
	metrics[prefix+"consistent_weight_share_pos"] = mean32(posShares)
	metrics[prefix+"consistent_weight_share_neg"] = mean32(negShares)
	metrics[prefix+"unit_weight_mean"] = mean32(unitWeights)
	metrics[prefix+"unit_weight_p95"] = p95(unitWeights)
	metrics[prefix+"degenerate_total_w_count"] = float64(degenerate)
	metrics[prefix+"r_norm_group_mean_abs_p95"] = p95(groupMeanAbs)
	metrics[prefix+"r_norm_group_std_p95"] = p95(groupStd)
	metrics[prefix+"zscore_bad_group_cnt"] = float64(badGroups)
	metrics[prefix+"good_bad_rnorm_gap_pos"] = mean32(gapPos)
	metrics[prefix+"good_bad_rnorm_gap_neg"] = mean32(gapNeg)
	metrics[prefix+"rnorm_small_mag_ratio"] = 0
	if len(absVals) > 0 {
		metrics[prefix+"rnorm_small_mag_ratio"] = float64(small) / float64(len(absVals))
	}
	metrics[prefix+"pre_norm_sum_sign_agree"] = meanOrZero(preAgree)
	metrics[prefix+"post_norm_sum_mean"] = mean32(postSums)
	s.put(metrics, prefix)
	return metrics
}

// meanStd32 returns the mean and population standard deviation of v
// rounded to float32, as torch reports them for a float32 tensor; 0, 0 for
// no values.
func meanStd32(v []float64) (mean, std float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += float64(float32(x))
	}
	mean /= float64(len(v))
	var m2 float64
	for _, x := range v {
		d := float64(float32(x)) - mean
		m2 += d * d
	}
	return f32(mean), f32(math.Sqrt(m2 / float64(len(v))))
}

// mean32 is the float32 mean of v, 0 for none.
func mean32(v []float64) float64 {
	m, _ := meanStd32(v)
	return m
}

// meanOrZero is Python's sum(v) / max(1, len(v)).
func meanOrZero(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(max(1, len(v)))
}

// p95 is the reference's _p95: the element at round-half-even(0.95(n−1))
// of the sorted values, 0 for none.
func p95(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(math.RoundToEven(0.95*float64(len(s)-1)))]
}

func f32(x float64) float64 { return float64(float32(x)) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
