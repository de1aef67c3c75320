package trainer

import (
	"context"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
)

// Hooks are where the self-evolving mechanisms plug into Fit. Every field
// is optional; the zero value trains with GRPO on the environment's own
// tasks, without experience.
type Hooks struct {
	// Tasks supplies each RL step's tasks (self-questioning: original,
	// synthetic or mixed). Nil draws them from the environment's training
	// split, shuffled per epoch.
	Tasks TaskSource
	// Experience injects experience into rollouts (self-navigating), for
	// example an experience.Injector over a pool; which rollouts ask for
	// it, and what training does with it, is the exp_manager section.
	Experience agentflow.ExperienceInjector
	// Recorder receives each step's trajectories after the update (for
	// example to summarise them into an experience store).
	Recorder TrajectoryRecorder
	// Advantages replaces the GRPO advantages (self-attributing: ADCA).
	Advantages AdvantageEstimator
}

// TaskSource supplies the tasks of an RL step.
type TaskSource interface {
	// NextTasks returns the n tasks of step (0-based). It must be a pure
	// function of step for --resume to reproduce a run.
	NextTasks(ctx context.Context, step, n int) ([]agentevolver.Task, error)
}

// TrajectoryRecorder receives the trajectories of each RL step.
type TrajectoryRecorder interface {
	Record(ctx context.Context, step int, trajectories []agentevolver.Trajectory) error
}

// AdvantageEstimator computes per-token advantages in place of GRPO.
type AdvantageEstimator interface {
	// Advantages returns one row of R advantages per sample of in, and
	// metrics to record with the step.
	Advantages(ctx context.Context, in AdvantageInput) (AdvantageOutput, error)
}

// AdvantageOutput is what an AdvantageEstimator computed.
type AdvantageOutput struct {
	// Advantages are the per-token advantages, B x R; a nil Advantages
	// keeps the GRPO ones (an estimator that only observes, or one whose
	// schedule has ended).
	Advantages [][]float32
	// Metrics are recorded with the step (for example prm/* of ADCA).
	Metrics map[string]float64
}

// AdvantageInput is what an AdvantageEstimator sees of an RL step: one row
// per sample, per-token values over the R response columns.
type AdvantageInput struct {
	Step    int
	Samples []agentevolver.Sample
	// Trajectories are the episodes the samples came from, in the same
	// order as Samples.
	Trajectories []agentevolver.Trajectory
	// LossMask is B x R: 1 on the policy's own tokens.
	LossMask [][]float32
	// Groups is each row's GRPO group (its task in the batch).
	Groups []int32
	// GRPO are the GRPO outcome advantages, B x R.
	GRPO [][]float32
	// Rewards are the token-level rewards, B x R: each sample's outcome
	// on its last response token (reference §8).
	Rewards [][]float32
	// StepIDs are each response column's step (Sample.StepIDs), B x R, -1
	// on headers, observations and padding.
	StepIDs [][]int
}
