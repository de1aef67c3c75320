package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/model"
)

// A checkpoint is a directory CheckpointDir/step_NNNNNN holding
//
//	model/       the policy in Hugging Face format (config.json, safetensors)
//	state/       every variable of the policy's GoMLX context: weights and
//	             optimiser state (moments, step counts), in GoMLX's format
//	state.json   the run's position (runState)
//
// It is written under a temporary name and renamed when complete; the file
// CheckpointDir/latest then names it. The reference policy is saved once,
// in ReferenceDir.
const (
	checkpointModelDir = "model"
	checkpointStateDir = "state"
	checkpointState    = "state.json"
	latestFile         = "latest"
)

// ErrNoCheckpoint reports a resume without a checkpoint to resume from.
var ErrNoCheckpoint = errors.New("trainer: no checkpoint to resume from")

func rolloutFor(task agentevolver.Task) agentflow.Rollout {
	return agentflow.Rollout{Task: task, DataID: "0", RolloutID: "0"}
}

// save writes a checkpoint of the current state.
func (r *run) save(ctx context.Context) error {
	root := filepath.Join(r.dir, CheckpointDir)
	name := fmt.Sprintf("step_%06d", r.state.Step)
	final := filepath.Join(root, name)
	tmp := final + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := r.savePolicy(ctx, filepath.Join(tmp, checkpointModelDir)); err != nil {
		return fmt.Errorf("trainer: checkpoint model: %w", err)
	}
	if err := saveContextState(r, filepath.Join(tmp, checkpointStateDir)); err != nil {
		return err
	}
	st := r.state
	st.WallSeconds += time.Since(r.started).Seconds()
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFile(filepath.Join(tmp, checkpointState), data); err != nil {
		return err
	}
	if err := os.RemoveAll(final); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	latestTmp := filepath.Join(root, latestFile+".tmp")
	if err := fsutil.WriteFile(latestTmp, []byte(name+"\n")); err != nil {
		return err
	}
	if err := os.Rename(latestTmp, filepath.Join(root, latestFile)); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	r.log.Info("trainer: checkpoint saved", "dir", final, "step", r.state.Step)
	return nil
}

// saveContextState writes every variable of the policy's context with
// GoMLX's checkpoint format.
func saveContextState(r *run, dir string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: checkpoint state: %v", ErrGraph, p)
		}
	}()
	ctx := r.m.Context()
	prev := ctx.Loader()
	// Build attaches the handler to ctx as its variable loader; restore
	// the previous one so saves do not chain loaders.
	defer ctx.SetLoader(prev)
	h, err := checkpoints.Build(ctx).Dir(dir).Keep(1).Done()
	if err != nil {
		return fmt.Errorf("trainer: checkpoint state: %w", err)
	}
	if err := h.Save(); err != nil {
		return fmt.Errorf("trainer: checkpoint state: %w", err)
	}
	return nil
}

// resume restores the last checkpoint, if there is one, and reports
// whether it did.
func (r *run) resume(ctx context.Context) (bool, error) {
	root := filepath.Join(r.dir, CheckpointDir)
	data, err := os.ReadFile(filepath.Join(root, latestFile))
	if errors.Is(err, os.ErrNotExist) {
		r.log.Warn("trainer: nothing to resume; starting afresh", "dir", root)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("trainer: resume: %w", err)
	}
	name := strings.TrimSpace(string(data))
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return false, fmt.Errorf("%w: %s names %q", ErrNoCheckpoint, filepath.Join(root, latestFile), name)
	}
	dir := filepath.Join(root, name)
	raw, err := fsutil.ReadFile(filepath.Join(dir, checkpointState), 1<<20)
	if err != nil {
		return false, fmt.Errorf("trainer: resume: %w", err)
	}
	var st runState
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return false, fmt.Errorf("trainer: resume: %s: %w", checkpointState, err)
	}
	if st.Seed != r.cfg.Trainer.Seed {
		return false, fmt.Errorf("%w: the checkpoint was made with seed %d, the configuration says %d", ErrConfig, st.Seed, r.cfg.Trainer.Seed)
	}
	if st.Step < 0 || st.Step > r.cfg.Trainer.RLSteps {
		return false, fmt.Errorf("%w: the checkpoint is at step %d, the run has %d RL steps", ErrConfig, st.Step, r.cfg.Trainer.RLSteps)
	}
	if err := loadContextState(r, filepath.Join(dir, checkpointStateDir)); err != nil {
		return false, err
	}
	r.state = st
	if st.WarmStartDone {
		if err := r.loadReference(ctx); err != nil {
			return false, err
		}
	}
	r.log.Info("trainer: resumed", "dir", dir, "step", st.Step)
	return true, nil
}

// loadContextState loads every variable saved by saveContextState into
// the policy's context, creating the optimiser's variables.
func loadContextState(r *run, dir string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: restore checkpoint state: %v", ErrGraph, p)
		}
	}()
	ctx := r.m.Context()
	prev := ctx.Loader()
	defer ctx.SetLoader(prev)
	if _, err := checkpoints.Build(ctx).Dir(dir).Immediate().Done(); err != nil {
		return fmt.Errorf("trainer: restore checkpoint state: %w", err)
	}
	return nil
}

// saveReference writes the current policy as the frozen reference and
// makes the Reference from it.
func (r *run) saveReference(ctx context.Context) error {
	if err := r.savePolicy(ctx, filepath.Join(r.dir, ReferenceDir)); err != nil {
		return fmt.Errorf("trainer: save reference: %w", err)
	}
	ref, err := NewReference(r.backend, r.m.Context(), ModelPolicy(r.m), ReferenceConfig{Temperature: r.cfg.Rollout.Temperature, MicroBatchSize: r.cfg.Actor.MicroBatchSize})
	if err != nil {
		return err
	}
	r.ref = ref
	return nil
}

// loadReference makes the Reference from ReferenceDir.
func (r *run) loadReference(ctx context.Context) error {
	m, err := model.Load(ctx, filepath.Join(r.dir, ReferenceDir), model.Options{Backend: r.backend, Logger: r.log})
	if err != nil {
		return fmt.Errorf("trainer: load reference: %w", err)
	}
	ref, err := NewReference(r.backend, m.Context(), ModelPolicy(m), ReferenceConfig{Temperature: r.cfg.Rollout.Temperature, MicroBatchSize: r.cfg.Actor.MicroBatchSize})
	if err != nil {
		return err
	}
	r.ref = ref
	return nil
}

// savePolicy writes the policy in Hugging Face format to dir, with the
// run's learned tokenizer beside it when there is one.
func (r *run) savePolicy(ctx context.Context, dir string) error {
	if err := r.m.Save(ctx, dir); err != nil {
		return err
	}
	return r.saveTokenizerBeside(dir)
}
