package trainer

import (
	"fmt"

	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/experience"
)

// trainAllocation is the exp_manager section's allocation of RL rollouts.
func (c ExperienceConfig) trainAllocation() experience.Allocation {
	return experience.Allocation{
		SampleMode:   experience.SampleMode(c.TrainSampleMode),
		KeepRatio:    c.TrainSampleKeepRatio,
		RolloutMode:  experience.RolloutMode(c.TrainRolloutMode),
		RolloutRatio: c.RolloutRatio,
	}
}

// valAllocation is its allocation of validation rollouts: the validation
// rollout mode; the train mode is irrelevant (nothing trains).
func (c ExperienceConfig) valAllocation() experience.Allocation {
	return experience.Allocation{RolloutMode: experience.RolloutMode(c.ValRolloutMode), RolloutRatio: c.RolloutRatio}
}

// allocateExperience sets the experience fields of rollouts, n per task
// in task order, from a, seeded by (seed, phase, step) so a resumed run
// allocates as the uninterrupted one did. Without an injector no rollout
// asks for experience.
func (r *run) allocateExperience(rollouts []agentflow.Rollout, n int, a experience.Allocation, phase, step int) error {
	if r.hooks.Experience == nil || n == 0 {
		return nil
	}
	seed := uint64(*rolloutSeed(r.cfg.Trainer.Seed, phase, step, -1, -1)) // -1: no episode's seed
	alloc, err := experience.Allocate(a, seed, len(rollouts)/n, n)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	for i := range rollouts {
		t := alloc[i/n]
		rollouts[i].AddExperience = t.AddExperience[i%n]
		rollouts[i].TrainMode = t.TrainMode
	}
	return nil
}
