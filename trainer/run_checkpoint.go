package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/internal/stepdir"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/checkpoint"
	"github.com/org/agentevolver/trainer/optim"
)

// A checkpoint is a directory CheckpointDir/step_NNNNNN holding
//
//	model/       the policy in Hugging Face format (config.json, safetensors;
//	             merged, with model/adapter/ the PEFT adapters, in a LoRA run)
//	state/       every variable of the policy's GoMLX context: weights and
//	             optimiser state (moments, step counts), in GoMLX's format
//	state.json   the run's position (runState)
//	config.yaml  the run's resolved configuration, without secrets
//	manifest.json every other file with its size and CRC-32C
//
// It is written under a temporary name, flushed to stable storage and
// renamed when complete; the file CheckpointDir/latest then names it.
// Resume verifies a checkpoint against its manifest, the configuration
// and the configured model before loading anything from it. The
// reference policy is saved once, in ReferenceDir (not in a LoRA run,
// whose reference is the frozen base the state holds).
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

// save writes a checkpoint of the current state: every file to a
// temporary directory, flushed to stable storage with a manifest of sizes
// and checksums written last, then renamed into place and named in the
// latest file. Older checkpoints beyond trainer.max_checkpoints_to_keep
// are removed afterwards.
func (r *run) save(ctx context.Context) error {
	root := filepath.Join(r.dir, CheckpointDir)
	name := checkpointName(r.state.Step)
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
	cfgYAML, err := configForCheckpoint(r.cfg)
	if err != nil {
		return fmt.Errorf("trainer: checkpoint config: %w", err)
	}
	if err := fsutil.WriteFile(filepath.Join(tmp, checkpointConfig), cfgYAML); err != nil {
		return err
	}
	// GoMLX writes the state without syncing it: flush everything before
	// the manifest vouches for it.
	if err := fsutil.SyncTree(tmp); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := checkpoint.WriteManifest(tmp); err != nil {
		return err
	}
	if err := os.RemoveAll(final); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := fsutil.SyncDir(root); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := fsutil.WriteFile(filepath.Join(root, latestFile), []byte(name+"\n")); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	r.log.Info("trainer: checkpoint saved", "dir", final, "step", r.state.Step)
	r.pruneCheckpoints(root, name)
	return nil
}

// checkpointName is the directory name of the checkpoint after step RL
// steps.
func checkpointName(step int) string { return stepdir.Name(step) }

// listCheckpoints returns the complete checkpoint directories under root
// (step_NNNNNN, no temporary ones), newest first.
func listCheckpoints(root string) ([]string, error) { return stepdir.List(root) }

// pruneCheckpoints removes the checkpoints beyond the newest
// max_checkpoints_to_keep (never current, the one just saved) and any
// temporary directory a crash left. Failures are logged: the new
// checkpoint is safe either way.
func (r *run) pruneCheckpoints(root, current string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && strings.HasSuffix(e.Name(), ".tmp") {
			if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
				r.log.Warn("trainer: removing a stale temporary checkpoint", "dir", e.Name(), "err", err)
			}
		}
	}
	keep := r.cfg.Trainer.MaxCheckpointsToKeep
	if keep <= 0 {
		return
	}
	names, err := listCheckpoints(root)
	if err != nil {
		r.log.Warn("trainer: listing checkpoints to prune", "err", err)
		return
	}
	// Names sort newest first; those newer than current (left by a run
	// that fell back to an older checkpoint) are neither counted nor
	// removed here.
	i := slices.Index(names, current)
	if i < 0 {
		return
	}
	older := names[i+1:]
	if len(older) < keep {
		return
	}
	for _, name := range older[keep-1:] {
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			r.log.Warn("trainer: removing an old checkpoint", "dir", name, "err", err)
			continue
		}
		r.log.Info("trainer: old checkpoint removed", "dir", name, "keep", keep)
	}
}

// saveContextState writes every variable of the policy's context with
// GoMLX's checkpoint format.
func saveContextState(r *run, dir string) error { return checkpoint.SaveState(r.m.Context(), dir) }

// resume restores the newest good checkpoint, if there is one, and
// reports whether it did. The checkpoint named in the latest file comes
// first, then the others, newest first: a checkpoint that fails
// verification (files missing or altered, state that does not fit the
// configured model) is skipped with a warning. A configuration that
// differs from the saved one where it matters fails at once; so does a
// run whose checkpoints are all bad: Resume never trains from fresh
// weights over a run that had some.
func (r *run) resume(ctx context.Context) (bool, error) {
	root := filepath.Join(r.dir, CheckpointDir)
	names, err := listCheckpoints(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("trainer: resume: %w", err)
	}
	if latest, err := readLatest(root); err != nil {
		r.log.Warn("trainer: ignoring the latest-checkpoint file", "err", err)
	} else if latest != "" {
		names = slices.DeleteFunc(names, func(n string) bool { return n == latest })
		names = append([]string{latest}, names...)
	}
	if len(names) == 0 {
		r.log.Warn("trainer: nothing to resume; starting afresh", "dir", root)
		return false, nil
	}
	want := checkpoint.ExpectedVariables(r.m.Context())
	var failures []error
	for i, name := range names {
		dir := filepath.Join(root, name)
		st, err := r.verifyCheckpoint(dir, want)
		if err == nil {
			err = loadContextState(r, filepath.Join(dir, checkpointStateDir))
		}
		if errors.Is(err, ErrConfig) {
			return false, err // every checkpoint of the run would repeat it
		}
		if err != nil {
			r.log.Warn("trainer: checkpoint unusable; trying an older one", "dir", dir, "err", err)
			failures = append(failures, fmt.Errorf("%s: %w", name, err))
			continue
		}
		r.state = st
		if st.WarmStartDone {
			if err := r.loadReference(ctx); err != nil {
				return false, err
			}
		}
		if i > 0 {
			r.log.Warn("trainer: resumed from an older checkpoint; the newer ones were unusable", "dir", dir, "step", st.Step, "skipped", i)
		}
		r.log.Info("trainer: resumed", "dir", dir, "step", st.Step)
		return true, nil
	}
	return false, fmt.Errorf("%w: no usable checkpoint in %s (refusing to start from fresh weights; use Overwrite / --overwrite to start over): %w",
		checkpoint.ErrCorrupt, root, errors.Join(failures...))
}

// readLatest returns the checkpoint the latest file names, "" when there
// is no such file.
func readLatest(root string) (string, error) {
	data, err := fsutil.ReadFile(filepath.Join(root, latestFile), 256)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(string(data))
	if _, ok := stepdir.Parse(name); !ok {
		return "", fmt.Errorf("%w: %s names %q", ErrNoCheckpoint, filepath.Join(root, latestFile), name)
	}
	return name, nil
}

// verifyCheckpoint checks the checkpoint in dir before anything is loaded
// from it and returns its run state: its files match the manifest, its
// configuration matches the run's where it matters (ErrConfig otherwise,
// naming the keys), its position fits the run, and its saved variables
// are exactly those of the configured model and its optimiser.
func (r *run) verifyCheckpoint(dir string, want map[string]checkpoint.VariableShape) (runState, error) {
	switch err := checkpoint.VerifyManifest(dir); {
	case errors.Is(err, checkpoint.ErrNoManifest):
		r.log.Warn("trainer: checkpoint has no manifest (written by an older version); its files cannot be checked", "dir", dir)
	case err != nil:
		return runState{}, err
	}
	raw, err := fsutil.ReadFile(filepath.Join(dir, checkpointState), 1<<20)
	if err != nil {
		return runState{}, fmt.Errorf("%w: %w", checkpoint.ErrCorrupt, err)
	}
	var st runState
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return runState{}, fmt.Errorf("%w: %s: %w", checkpoint.ErrCorrupt, checkpointState, err)
	}
	if err := r.compareSavedConfig(dir); err != nil {
		return runState{}, err
	}
	if st.Seed != r.cfg.Trainer.Seed {
		return runState{}, fmt.Errorf("%w: the checkpoint was made with seed %d, the configuration says %d", ErrConfig, st.Seed, r.cfg.Trainer.Seed)
	}
	if st.Step < 0 || st.Step > r.cfg.Trainer.RLSteps {
		return runState{}, fmt.Errorf("%w: the checkpoint is at step %d, the run has %d RL steps", ErrConfig, st.Step, r.cfg.Trainer.RLSteps)
	}
	if err := checkpoint.VerifyState(filepath.Join(dir, checkpointStateDir), want, st.Step); err != nil {
		return runState{}, err
	}
	return st, nil
}

// compareSavedConfig compares the configuration saved in the checkpoint
// dir with the run's: differences that make the checkpoint unusable are
// an ErrConfig naming them, others are logged.
func (r *run) compareSavedConfig(dir string) error {
	saved, err := fsutil.ReadFile(filepath.Join(dir, checkpointConfig), maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		r.log.Warn("trainer: checkpoint has no saved configuration (written by an older version); not compared", "dir", dir)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", checkpoint.ErrCorrupt, err)
	}
	current, err := configForCheckpoint(r.cfg)
	if err != nil {
		return err
	}
	fatal, other, err := compareConfigs(saved, current)
	if err != nil {
		return err
	}
	if len(other) > 0 {
		r.log.Warn("trainer: resuming with a changed configuration", "changes", other)
	}
	if len(fatal) > 0 {
		return fmt.Errorf("%w: the configuration differs from the checkpoint's (%s) where the checkpoint cannot follow: %s; restore these values, or start a new run (--overwrite or another trainer.output_dir)",
			ErrConfig, filepath.Join(dir, checkpointConfig), strings.Join(fatal, "; "))
	}
	return nil
}

// loadContextState loads every variable saved by saveContextState into
// the policy's context, creating the optimiser's variables.
func loadContextState(r *run, dir string) error { return checkpoint.LoadState(r.m.Context(), dir) }

// saveReference writes the current policy as the frozen reference and
// makes the Reference from it. A LoRA run writes nothing: its reference
// is the base, the policy with its adapters off (adaptersOffReference).
func (r *run) saveReference(ctx context.Context) error {
	if r.lora() {
		ref, err := r.adaptersOffReference()
		if err != nil {
			return err
		}
		r.ref = ref
		return nil
	}
	dir := filepath.Join(r.dir, ReferenceDir)
	if err := r.savePolicy(ctx, dir); err != nil {
		return fmt.Errorf("trainer: save reference: %w", err)
	}
	if err := fsutil.SyncTree(dir); err != nil {
		return fmt.Errorf("trainer: save reference: %w", err)
	}
	if err := checkpoint.WriteManifest(dir); err != nil {
		return fmt.Errorf("trainer: save reference: %w", err)
	}
	ref, err := optim.NewReference(r.backend, r.m.Context(), optim.ModelPolicy(r.m), optim.ReferenceConfig{Temperature: r.cfg.Rollout.Temperature, MicroBatchSize: r.cfg.Actor.MicroBatchSize})
	if err != nil {
		return asConfigErr(err)
	}
	r.ref = ref
	return nil
}

// loadReference makes the Reference from ReferenceDir, or, in a LoRA
// run, from the policy's context with its adapters off.
func (r *run) loadReference(ctx context.Context) error {
	if r.lora() {
		ref, err := r.adaptersOffReference()
		if err != nil {
			return err
		}
		r.ref = ref
		return nil
	}
	dir := filepath.Join(r.dir, ReferenceDir)
	if err := checkpoint.VerifyManifest(dir); err != nil && !errors.Is(err, checkpoint.ErrNoManifest) {
		return fmt.Errorf("trainer: reference policy in %s: %w", dir, err)
	}
	// The reference computes in the policy's dtype, as it did before the
	// resume (a fresh run's reference is a copy of the policy model).
	m, err := model.Load(ctx, dir, model.Options{Backend: r.backend, Logger: r.log, ComputeDType: r.m.ComputeDType()})
	if err != nil {
		return fmt.Errorf("trainer: load reference: %w", err)
	}
	ref, err := optim.NewReference(r.backend, m.Context(), optim.ModelPolicy(m), optim.ReferenceConfig{Temperature: r.cfg.Rollout.Temperature, MicroBatchSize: r.cfg.Actor.MicroBatchSize})
	if err != nil {
		return asConfigErr(err)
	}
	r.ref = ref
	return nil
}

// savePolicy writes the policy to dir as a complete Hugging Face
// directory (model.Export in float32, so that loading it back gives the
// very weights): config.json with architectures and token ids,
// generation_config.json (the one beside model.path when there is one),
// the weights in 5 GB safetensors shards with an index, and the run's
// tokenizer when it has Hugging Face files (a tokenizer.json loaded from
// a directory or learned from the environment; the built-in byte-level
// tokenizer has none, and its policies are not servable on their own).
// Checkpoints, the reference and final/ are all written this way, so
// vLLM serves any of them. A LoRA run's policy is written merged, with
// its adapters beside it as a PEFT directory in dir/AdapterDir.
func (r *run) savePolicy(ctx context.Context, dir string) error {
	opts := model.ExportOptions{DType: model.ExportFloat32}
	if _, ok := r.tok.(model.HFSaver); ok {
		opts.Tokenizer = r.tok
	}
	if r.cfg.Model.Path != "" {
		dir, err := r.cfg.Model.Dir()
		if err != nil {
			return err
		}
		gen, err := fsutil.ReadFile(filepath.Join(dir, model.GenerationConfigFile), 1<<20)
		var obj map[string]json.RawMessage
		if err == nil {
			err = json.Unmarshal(gen, &obj)
		}
		switch {
		case err == nil && obj != nil:
			opts.GenerationConfig = gen
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			r.log.Warn("trainer: ignoring the source checkpoint's generation config", "err", err)
		}
	}
	if _, err := r.m.Export(ctx, dir, opts); err != nil {
		return err
	}
	return r.saveAdapter(ctx, dir)
}
