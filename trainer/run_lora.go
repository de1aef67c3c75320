package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/optim"
)

// AdapterDir is the PEFT adapter directory (adapter_config.json,
// adapter_model.safetensors) that a LoRA run writes inside each policy
// directory it saves: final/adapter/ and every checkpoint's
// model/adapter/. The policy directory itself holds the merged weights.
const AdapterDir = "adapter"

// problems returns what is wrong with actor.lora, as Validate reports it.
func (c LoRAConfig) problems() []string {
	var errs []string
	if c.R < 0 {
		errs = append(errs, fmt.Sprintf("actor.lora.r %d < 0 (0 turns LoRA off)", c.R))
	}
	if !c.Enabled() {
		return errs
	}
	if !(c.Alpha >= 0) || math.IsInf(c.Alpha, 0) {
		errs = append(errs, fmt.Sprintf("actor.lora.lora_alpha %v must be >= 0 (0 means r)", c.Alpha))
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		errs = append(errs, fmt.Sprintf("actor.lora.lora_dropout %v not in [0, 1)", c.Dropout))
	}
	for _, m := range c.TargetModules {
		if !slices.Contains(model.LoRAModules, m) {
			errs = append(errs, fmt.Sprintf("actor.lora.target_modules: %q is not one of %s", m, strings.Join(model.LoRAModules, ", ")))
		}
	}
	return errs
}

// modelConfig is c as the model package spells it.
func (c LoRAConfig) modelConfig() model.LoRAConfig {
	var targets []string
	if len(c.TargetModules) > 0 {
		targets = slices.Clone(c.TargetModules)
	}
	return model.LoRAConfig{R: c.R, Alpha: c.Alpha, Dropout: c.Dropout, TargetModules: targets}
}

// setupLoRA adds actor.lora's adapters to the policy model, freezing its
// weights, when LoRA is on. It runs before anything is built over the
// model (the updater, the rollout policy, a checkpoint's verification),
// so all of them see the adapters. The adapters' A matrices are drawn
// from the run's seed, so a resumed run builds the same variables before
// the checkpoint overwrites them.
func (r *run) setupLoRA() error {
	l := r.cfg.Actor.LoRA
	if !l.Enabled() {
		return nil
	}
	if err := r.m.AddLoRA(l.modelConfig(), r.cfg.Trainer.Seed); err != nil {
		if errors.Is(err, model.ErrBadConfig) {
			return fmt.Errorf("%w: actor.lora: %w", ErrConfig, err)
		}
		return fmt.Errorf("trainer: LoRA adapters: %w", err)
	}
	if l.Dropout > 0 {
		r.log.Warn("trainer: actor.lora.lora_dropout is recorded in the adapter's configuration but not applied in training", "lora_dropout", l.Dropout)
	}
	trainable := 0
	for v := range r.m.Context().IterVariables() {
		if v.Trainable {
			trainable += v.Shape().Size()
		}
	}
	applied, _ := r.m.LoRA()
	r.log.Info("trainer: LoRA adapters added; the base weights are frozen", "r", applied.R, "lora_alpha", applied.Alpha,
		"target_modules", applied.TargetModules, "trainable_params", trainable, "params", r.m.Config().NumParameters())
	return nil
}

// lora reports whether the run trains LoRA adapters.
func (r *run) lora() bool { return r.cfg.Actor.LoRA.Enabled() }

// adaptersOffReference returns the reference policy of a LoRA run: the
// policy's own context seen with its adapters switched off
// (model.AdaptersOff), which is the frozen base. Nothing is copied; the
// optimiser never changes the base, so the reference stays what it was.
// NewReference would copy only the trainable variables, which with LoRA
// are the adapters alone.
func (r *run) adaptersOffReference() (*optim.Reference, error) {
	ref, err := optim.NewContextReference(r.backend, model.AdaptersOff(r.m.Context()), optim.ModelPolicy(r.m),
		optim.ReferenceConfig{Temperature: r.cfg.Rollout.Temperature, MicroBatchSize: r.cfg.Actor.MicroBatchSize})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ref, nil
}

// adapterBaseName is what a LoRA run records as its adapters'
// base_model_name_or_path: the remote servers' model name, else
// model.path ("" for a model initialised from model.shape).
func (r *run) adapterBaseName() string {
	if n := r.cfg.Rollout.Remote.ModelName; n != "" {
		return n
	}
	return r.cfg.Model.Path
}

// saveAdapter writes the policy's adapters as a PEFT directory at
// dir/AdapterDir (nothing without LoRA).
func (r *run) saveAdapter(ctx context.Context, dir string) error {
	if !r.lora() {
		return nil
	}
	if err := r.m.ExportAdapter(ctx, filepath.Join(dir, AdapterDir), r.adapterBaseName()); err != nil {
		return fmt.Errorf("trainer: save adapter: %w", err)
	}
	return nil
}
