package trainer

import (
	"log/slog"
	"math"
	"strconv"
)

// DefaultSilentSteps is RunConfig.SilentSteps's default.
const DefaultSilentSteps = 5

// MetricNoSignal is 1 for an RL step that gave the policy nothing to learn
// from (every advantage zero), else 0.
const MetricNoSignal = "rl/no_signal"

// silence watches RL steps for a run that learns nothing: GRPO's
// advantage is an outcome minus its group's mean, so when every episode of
// a group scores alike (all failures, most often) the group's advantages
// are zero, and a step whose groups are all alike learns nothing: only
// weight decay moves the policy, and the KL term's pull back, which Adam
// scales up to full-size steps (measured: KL 0.005-0.023 after 4-9 such
// steps of the reserved base at actor.lr 5e-4, exactly 0 with
// actor.weight_decay 0). After RunConfig.SilentSteps such steps in a row it warns, once,
// saying why and what to do; a new user otherwise trains for many steps
// at reward 0 without a word.
type silence struct {
	limit  int // steps in a row before the warning; <= 0 never warns
	run    int // silent steps in a row so far
	first  int // the first of them (1-based)
	warned bool
	// allZero is whether every episode of the silent run scored 0.
	allZero bool
}

// observe records RL step (1-based): outcomes are its episodes' scores by
// group, adv its final advantages (after any advantage hook or ADCA) under
// the loss mask. It reports whether the step was silent and warns when the
// run of silent steps reaches the limit.
func (s *silence) observe(log *slog.Logger, step int, groups map[string][]float64, adv, mask [][]float32) bool {
	if hasSignal(adv, mask) {
		s.run = 0
		return false
	}
	zero := allScoresZero(groups)
	if s.run == 0 {
		s.first, s.allZero = step, zero
	}
	s.run++
	s.allZero = s.allZero && zero
	if s.limit > 0 && s.run >= s.limit && !s.warned {
		s.warned = true
		why := "within each task's group every episode got the same score"
		if s.allZero {
			why = "every episode scored 0"
		}
		log.Warn("trainer: nothing is being learned: in RL steps "+strconv.Itoa(s.first)+" to "+strconv.Itoa(step)+" "+why+
			", so every GRPO advantage is 0 and the policy learns nothing (only weight decay and the KL term move it: actor.weight_decay 0 keeps such a step a no-op). "+
			"Start from a policy that solves some of the tasks: a pretrained base (model.path; the shipped toolworld base is models/toolworld-base), "+
			"a supervised warm start on demonstrations (warm_start.steps, with an environment that has an expert), "+
			"or an easier split (data.max_difficulty, env.toolworld.max_level); a larger group (rollout.n) or a higher rollout.temperature "+
			"makes a rare success more likely to show up.",
			"first_step", s.first, "step", step, "all_zero", s.allZero)
	}
	return true
}

// hasSignal reports an advantage that is not zero under the loss mask.
func hasSignal(adv, mask [][]float32) bool {
	for i, row := range adv {
		for j, v := range row {
			if i < len(mask) && j < len(mask[i]) && mask[i][j] != 0 && v != 0 && !math.IsNaN(float64(v)) {
				return true
			}
		}
	}
	return false
}

// allScoresZero reports that no episode scored above 0.
func allScoresZero(groups map[string][]float64) bool {
	for _, g := range groups {
		for _, v := range g {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
