package experience

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/org/agentevolver"
)

// ErrConfig reports an invalid experience configuration.
var ErrConfig = errors.New("experience: invalid configuration")

// SampleMode decides each task's train mode (train_sample_mode, reference
// §5.1).
type SampleMode string

// Sample modes.
const (
	// AllKeep keeps experience in every training sample (EC: experience
	// in context).
	AllKeep SampleMode = "allkeep"
	// AllDiscard strips it from every one (EI: experience internalised).
	AllDiscard SampleMode = "alldiscard"
	// Hybrid keeps it for a KeepRatio share of the tasks (HET).
	Hybrid SampleMode = "hybrid"
)

// RolloutMode decides which rollouts of a task ask for experience
// (train_rollout_mode and val_rollout_mode).
type RolloutMode string

// Rollout modes.
const (
	// WithoutExperience asks for none (woexp).
	WithoutExperience RolloutMode = "woexp"
	// Mixed asks for it in round(n × RolloutRatio) rollouts of each task.
	Mixed RolloutMode = "mixed"
	// AllRollouts asks for it in every rollout (all).
	AllRollouts RolloutMode = "all"
)

// Allocation configures Allocate. The zero value gives no rollout any
// experience, every task TrainDiscard.
type Allocation struct {
	// SampleMode chooses train modes; "" means AllDiscard.
	SampleMode SampleMode
	// KeepRatio is Hybrid's share of keep tasks, in [0, 1]
	// (train_sample_keepratio).
	KeepRatio float64
	// RolloutMode chooses the rollouts with experience; "" means
	// WithoutExperience.
	RolloutMode RolloutMode
	// RolloutRatio is Mixed's share of rollouts with experience, in
	// [0, 1] (rollout_ratio).
	RolloutRatio float64
}

// Validate reports unknown modes and ratios outside [0, 1]. Unlike the
// reference, which treats an unknown sample mode as hybrid and fails on an
// unknown rollout mode only when it is used, both are errors up front.
func (a Allocation) Validate() error {
	switch a.SampleMode {
	case "", AllKeep, AllDiscard, Hybrid:
	default:
		return fmt.Errorf("%w: train_sample_mode %q: want allkeep, alldiscard or hybrid", ErrConfig, a.SampleMode)
	}
	switch a.RolloutMode {
	case "", WithoutExperience, Mixed, AllRollouts:
	default:
		return fmt.Errorf("%w: rollout mode %q: want woexp, mixed or all", ErrConfig, a.RolloutMode)
	}
	if !(a.KeepRatio >= 0 && a.KeepRatio <= 1) || !(a.RolloutRatio >= 0 && a.RolloutRatio <= 1) {
		return fmt.Errorf("%w: train_sample_keepratio %v and rollout_ratio %v must be in [0, 1]", ErrConfig, a.KeepRatio, a.RolloutRatio)
	}
	return nil
}

// TaskAllocation is one task's share: its train mode and, per rollout,
// whether to ask for experience.
type TaskAllocation struct {
	TrainMode     agentevolver.TrainMode
	AddExperience []bool
}

// Allocate decides the experience of a batch of tasks with n rollouts
// each (reference §5.1), reproducibly: the same seed gives the same
// allocation, whatever else runs.
//
//   - Train modes: k = floor(tasks × keep ratio) tasks keep (the keep
//     ratio is 1 for AllKeep, 0 for AllDiscard, KeepRatio for Hybrid),
//     the others discard, in an order shuffled by the seed.
//   - Rollouts: WithoutExperience none, AllRollouts all, Mixed exactly
//     m = round(n × RolloutRatio) of each task's n rollouts, rounding half
//     to even as Python's round does (n = 8, ratio 0.3125: 2), at
//     positions drawn independently per task.
func Allocate(a Allocation, seed uint64, tasks, n int) ([]TaskAllocation, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if tasks < 0 || n < 0 {
		return nil, fmt.Errorf("%w: %d tasks of %d rollouts", ErrConfig, tasks, n)
	}
	rng := rand.New(rand.NewPCG(seed, 0x65787065 /* "expe" */))
	keep := 0.0
	switch a.SampleMode {
	case AllKeep:
		keep = 1
	case Hybrid:
		keep = a.KeepRatio
	}
	k := int(math.Floor(float64(tasks) * keep))
	modes := make([]agentevolver.TrainMode, tasks)
	for i := range modes {
		modes[i] = agentevolver.TrainDiscard
		if i < k {
			modes[i] = agentevolver.TrainKeep
		}
	}
	rng.Shuffle(len(modes), func(i, j int) { modes[i], modes[j] = modes[j], modes[i] })

	m := 0
	switch a.RolloutMode {
	case AllRollouts:
		m = n
	case Mixed:
		m = int(math.RoundToEven(float64(n) * a.RolloutRatio))
	}
	out := make([]TaskAllocation, tasks)
	for i := range out {
		add := make([]bool, n)
		for j := range m {
			add[j] = true
		}
		if a.RolloutMode == Mixed {
			rng.Shuffle(n, func(x, y int) { add[x], add[y] = add[y], add[x] })
		}
		out[i] = TaskAllocation{TrainMode: modes[i], AddExperience: add}
	}
	return out, nil
}
