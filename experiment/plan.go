package experiment

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/org/agentevolver/internal/config"
	"github.com/org/agentevolver/trainer"
)

// DefaultOutputRoot is where experiments write when Options.OutputRoot is
// empty.
const DefaultOutputRoot = "runs"

// QuickSuffix is appended to the experiment name of a quick run, so that
// a smoke test never overwrites the results of the real experiment.
const QuickSuffix = "-quick"

// StartDir names the directory of a plan's start runs,
// <root>/<name>/start/seed-<seed> (see File.Start), and is their Job.Arm.
const StartDir = "start"

// Job is one arm × seed run of a plan, or a seed's start run.
type Job struct {
	// Arm is the arm's name; StartDir for a start run.
	Arm string
	// Start reports the start run of Seed: trained with no RL step, its
	// final policy is what every arm of the seed starts from.
	Start bool
	// Seed is the run's seed.
	Seed int64
	// Config is the run's whole configuration: the trainer's defaults,
	// then the base layer, the arm's layer and (in a quick run) the quick
	// layer, then the seed, the budget, the run's name
	// (<experiment>-<arm>-s<seed>) and its output directory
	// (<root>/<experiment>/<arm>/seed-<seed>).
	Config trainer.Config
}

// Plan is an experiment resolved into runs, every configuration loaded and
// validated, before anything trains.
type Plan struct {
	// Name is the experiment's name, with QuickSuffix in a quick run.
	Name string
	// Dir is <root>/<Name>; comparison.json and comparison.png go there.
	Dir string
	// Quick reports a quick run.
	Quick bool
	// Steps is the RL-step budget every run shares.
	Steps int
	// Arms are the arm names in file order.
	Arms []string
	// Bases maps an arm's name to the arm it adds a mechanism to
	// (Arm.Base), for arms that name one.
	Bases map[string]string
	// Seeds are the seeds every arm runs with.
	Seeds []int64
	// Jobs are the runs in the order they run: seed by seed, the seed's
	// start run (when the file has a start layer) and then every arm for
	// the seed before the next seed, so that an experiment stopped early
	// still holds paired comparisons.
	Jobs []Job
}

// NewPlan resolves f into runs as opts says (Quick, OutputRoot) and checks
// every configuration with trainer.LoadConfig, so a typo in the last arm is
// reported before the first one trains. The layers of a run are applied in
// this order: the trainer's defaults, the base layer, the arm's layer, the
// quick layer (in a quick run), then the keys the experiment owns:
// trainer.seed, trainer.rl_steps, trainer.experiment_name and
// trainer.output_dir. An arm or quick layer that sets one of those is an
// error (the budget is the same for every arm by construction); values the
// base sets for them are replaced, except that trainer.rl_steps is the
// budget when the file gives no steps. Within a layer, files come first,
// then its inline mapping, then its overrides. With a start layer
// (File.Start), each seed first gets a start run (defaults, base, start
// layer, quick layer, then the owned keys with trainer.rl_steps 0), and
// every arm of the seed also owns model.path (the start run's final
// policy), model.tokenizer and model.tokenizer_vocab (the policy's own
// tokenizer) and warm_start.steps (0). Every directory of the plan is
// checked to lie inside the output root (opts.OutputRoot, or
// DefaultOutputRoot): <root>/<name>, <root>/<name>/<arm>/seed-<seed> for
// each run and <root>/<name>/start/seed-<seed> for each start run. Errors
// wrap [ErrInvalid].
func NewPlan(f File, opts Options) (Plan, error) {
	if err := f.check(); err != nil {
		return Plan{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	tmp, err := os.MkdirTemp("", "agentevolver-experiment-*")
	if err != nil {
		return Plan{}, fmt.Errorf("experiment: %w", err)
	}
	defer os.RemoveAll(tmp)
	layers := layerWriter{dir: tmp}

	p := Plan{Name: f.Name, Quick: opts.Quick, Seeds: f.runSeeds(opts.Quick)}
	if opts.Quick {
		p.Name += QuickSuffix
	}
	if p.Dir, err = inside(cmp.Or(opts.OutputRoot, DefaultOutputRoot), p.Name); err != nil {
		return Plan{}, err
	}

	baseFiles, err := layers.files("base", "base", f.Base)
	if err != nil {
		return Plan{}, err
	}
	base, err := trainer.LoadConfig(baseFiles, nil)
	if err != nil {
		return Plan{}, fmt.Errorf("%w: base: %w", ErrInvalid, err)
	}
	p.Steps = f.runSteps(opts.Quick)
	if p.Steps == 0 {
		p.Steps = base.Trainer.RLSteps
	}
	var quickFiles []string
	if opts.Quick {
		if quickFiles, err = layers.files("quick", "quick", f.Quick.Layer); err != nil {
			return Plan{}, err
		}
	}
	var startFiles []string
	if f.Start != nil {
		if startFiles, err = startLayers(layers, *f.Start, base, baseFiles, quickFiles); err != nil {
			return Plan{}, err
		}
	}

	armFiles := make(map[string][]string, len(f.Arms))
	for _, a := range f.Arms {
		p.Arms = append(p.Arms, a.Name)
		if a.Base != "" {
			if p.Bases == nil {
				p.Bases = map[string]string{}
			}
			p.Bases[a.Name] = a.Base
		}
		own, err := layers.files(fmt.Sprintf("arm %q", a.Name), "arm-"+a.Name, a.Layer)
		if err != nil {
			return Plan{}, err
		}
		files := append(append([]string(nil), baseFiles...), own...)
		cfg, err := trainer.LoadConfig(files, nil)
		if err != nil {
			return Plan{}, fmt.Errorf("%w: arm %q: %w", ErrInvalid, a.Name, err)
		}
		if err := checkOwned(fmt.Sprintf("arm %q", a.Name), base, cfg); err != nil {
			return Plan{}, err
		}
		if f.Start != nil {
			if err := checkStartOwned(fmt.Sprintf("arm %q", a.Name), base, cfg); err != nil {
				return Plan{}, err
			}
		}
		if opts.Quick {
			files = append(files, quickFiles...)
			quick, err := trainer.LoadConfig(files, nil)
			if err != nil {
				return Plan{}, fmt.Errorf("%w: quick layer over arm %q: %w", ErrInvalid, a.Name, err)
			}
			if err := checkOwned("the quick layer", cfg, quick); err != nil {
				return Plan{}, err
			}
		}
		armFiles[a.Name] = files
	}

	for _, seed := range p.Seeds {
		var from startPoint // what the seed's arms start from; zero for the configured policy
		if startFiles != nil {
			job, err := p.job(layers, StartDir, seed, startFiles, 0, startPoint{})
			if err != nil {
				return Plan{}, err
			}
			job.Start = true
			p.Jobs = append(p.Jobs, job)
			from = startPoint{policy: filepath.Join(job.Config.Trainer.OutputDir, trainer.FinalModelDir), pool: job.Config.ExperiencePoolFile()}
		}
		for _, arm := range p.Arms {
			job, err := p.job(layers, arm, seed, armFiles[arm], p.Steps, from)
			if err != nil {
				return Plan{}, err
			}
			p.Jobs = append(p.Jobs, job)
		}
	}
	return p, nil
}

// startLayers returns the files of the start runs' configuration (the base,
// the start layer, then the quick layer when quickFiles holds it), checking
// that it loads and leaves the experiment's keys alone.
func startLayers(layers layerWriter, start Layer, base trainer.Config, baseFiles, quickFiles []string) ([]string, error) {
	own, err := layers.files("start", StartDir, start)
	if err != nil {
		return nil, err
	}
	files := append(slices.Clone(baseFiles), own...)
	cfg, err := trainer.LoadConfig(files, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: start: %w", ErrInvalid, err)
	}
	if err := checkOwned("the start layer", base, cfg); err != nil {
		return nil, err
	}
	if len(quickFiles) == 0 {
		return files, nil
	}
	files = append(files, quickFiles...)
	if _, err := trainer.LoadConfig(files, nil); err != nil {
		return nil, fmt.Errorf("%w: quick layer over the start layer: %w", ErrInvalid, err)
	}
	return files, nil
}

// startPoint is what the arms of a seed start from: the start run's final
// policy and, when it kept one, its local experience pool.
type startPoint struct {
	policy, pool string
}

// job resolves the configuration of one arm × seed with the given RL-step
// budget; from, when set, is the start run it starts from: its policy, and
// a copy of its local experience pool for an arm with a local pool of its
// own (exp_manager.pool.init_from, unless the arm sets it).
func (p Plan) job(layers layerWriter, arm string, seed int64, files []string, steps int, from startPoint) (Job, error) {
	name := fmt.Sprintf("%s-%s-s%d", p.Name, arm, seed)
	dir, err := runDir(p.Dir, arm, seed)
	if err != nil {
		return Job{}, err
	}
	owned := map[string]any{
		"trainer": map[string]any{
			"seed":            seed,
			"rl_steps":        steps,
			"experiment_name": name,
			"output_dir":      dir,
		},
	}
	if from.policy != "" {
		owned["model"] = map[string]any{"path": from.policy, "tokenizer": "", "tokenizer_vocab": 0}
		owned["warm_start"] = map[string]any{"steps": 0}
	}
	ownedFiles, err := layers.files(fmt.Sprintf("run %q", name), "run-"+name, Layer{Config: owned})
	if err != nil {
		return Job{}, err
	}
	cfg, err := trainer.LoadConfig(append(slices.Clone(files), ownedFiles...), nil)
	if err != nil {
		return Job{}, fmt.Errorf("%w: arm %q seed %d: %w", ErrInvalid, arm, seed, err)
	}
	if cfg.Trainer.Seed != seed || cfg.Trainer.RLSteps != steps || cfg.Trainer.ExperimentName != name || cfg.Trainer.OutputDir != dir {
		return Job{}, fmt.Errorf("%w: arm %q seed %d: the run's trainer section resolved to seed %d, rl_steps %d, name %q, output_dir %q",
			ErrInvalid, arm, seed, cfg.Trainer.Seed, cfg.Trainer.RLSteps, cfg.Trainer.ExperimentName, cfg.Trainer.OutputDir)
	}
	if from.pool != "" && cfg.ExperiencePoolFile() != "" && cfg.Experience.Pool.InitFrom == "" {
		cfg.Experience.Pool.InitFrom = from.pool
	}
	return Job{Arm: arm, Seed: seed, Config: cfg}, nil
}

// runDir is the output directory of one arm × seed, inside dir.
func runDir(dir, arm string, seed int64) (string, error) {
	if err := checkName("arm", arm); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return inside(dir, arm, "seed-"+strconv.FormatInt(seed, 10))
}

// checkOwned reports a layer that changed one of the keys the experiment
// sets for every run.
func checkOwned(what string, before, after trainer.Config) error {
	b, a := before.Trainer, after.Trainer
	var key, why string
	switch {
	case a.RLSteps != b.RLSteps:
		key, why = "trainer.rl_steps", "every arm runs the experiment's steps"
	case a.Seed != b.Seed:
		key, why = "trainer.seed", "the experiment's seeds set it"
	case a.ExperimentName != b.ExperimentName:
		key, why = "trainer.experiment_name", "the experiment names every run"
	case a.OutputDir != b.OutputDir:
		key, why = "trainer.output_dir", "the experiment places every run"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s sets %s; %s", ErrInvalid, what, key, why)
}

// checkStartOwned reports an arm that changed a key the start run owns in
// an experiment with a start layer.
func checkStartOwned(what string, before, after trainer.Config) error {
	var key string
	switch {
	case after.Model.Path != before.Model.Path:
		key = "model.path"
	case after.Model.Tokenizer != before.Model.Tokenizer, after.Model.TokenizerVocab != before.Model.TokenizerVocab:
		key = "model.tokenizer"
	case after.WarmStart.Steps != before.WarmStart.Steps:
		key = "warm_start.steps"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s sets %s; with a start layer every arm of a seed starts from the start run's policy (put it in the start layer)", ErrInvalid, what, key)
}

// layerWriter writes layers' inline parts as files for trainer.LoadConfig.
type layerWriter struct{ dir string }

// files returns the files of layer l in order: its own files, then one
// holding its mapping with its overrides applied, when it has either. what
// names the layer in errors, name its file (a safe path segment).
func (w layerWriter) files(what, name string, l Layer) ([]string, error) {
	files := append([]string(nil), l.Files...)
	if len(l.Config) == 0 && len(l.Set) == 0 {
		return files, nil
	}
	data, err := config.Overlay(l.Config, l.Set)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, what, err)
	}
	path, err := inside(w.dir, name+".yaml")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	return append(files, path), nil
}
