package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/trainer"
)

// metricsFile is the metrics log a training run writes in its output
// directory (one JSON object per line).
const metricsFile = "metrics.jsonl"

// Options configure [Run]. The zero value runs the full experiment under
// "runs" with the real trainer, logging and printing nothing.
type Options struct {
	// Quick runs the file's quick version: its quick seeds and steps and
	// its quick layer, under the name <name>-quick.
	Quick bool
	// OutputRoot is the directory experiments write under;
	// DefaultOutputRoot when empty.
	OutputRoot string
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Output receives the table of results at the end; nil discards it.
	Output io.Writer
	// Progress receives a line as each run starts and ends; nil discards
	// them.
	Progress io.Writer
	// Train runs one training job to completion in cfg.Trainer.OutputDir,
	// which it finds empty, leaving the metrics log there. Nil uses
	// trainer.New and Fit with TrainerOptions.
	Train func(ctx context.Context, cfg trainer.Config) error
	// TrainerOptions returns the trainer options of the run with
	// configuration cfg when Train is nil (a caller can plug in hooks per
	// arm this way). Nil uses trainer.Options{Logger: Logger}.
	TrainerOptions func(cfg trainer.Config) trainer.Options
	// Resume keeps the runs an earlier Run of the same plan finished
	// (see [Plan.Run]) instead of training them again, so that an
	// experiment longer than one sitting can be stopped and continued.
	Resume bool
}

// Run plans the experiment f (see [NewPlan]) and runs it (see [Plan.Run]).
func Run(ctx context.Context, f File, opts Options) (Comparison, error) {
	p, err := NewPlan(f, opts)
	if err != nil {
		return Comparison{}, err
	}
	return p.Run(ctx, opts)
}

// Run runs the plan's jobs one after another, each with the same budget in
// its own output directory, which is emptied first (a rerun replaces the
// earlier run). After every run it rewrites comparison.json and
// comparison.png under p.Dir, so an experiment stopped for any reason
// keeps what finished; at the end it writes the table to opts.Output. A
// run that fails (a training error, or no validation result in its metrics
// log) is recorded with its error and the others go on; Run then returns
// the comparison with an error wrapping [ErrRunFailed]. A failed start run
// (File.Start) is recorded in Comparison.Starts, and the arms of its seed,
// which would have nothing to start from, are recorded as failed without
// training. When ctx is
// cancelled, the run in progress stops, is recorded as interrupted, and Run
// returns what finished with an error wrapping ctx.Err(). With
// opts.Resume, a job whose output directory holds a finished run (the
// trainer's summary.json) made with the same resolved configuration (the
// record beside the directory) is not run again: its results are read back,
// unless it is an arm run whose seed's start run (File.Start) trained again.
// Only a failure to
// write the results stops Run early otherwise. A plan with a job of an arm
// it does not have, or whose output directory is not strictly inside p.Dir,
// runs nothing and is an error wrapping [ErrInvalid].
func (p Plan) Run(ctx context.Context, opts Options) (Comparison, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if err := p.check(); err != nil {
		return Comparison{}, err
	}
	began := time.Now()
	c := Comparison{Name: p.Name, Quick: p.Quick, Steps: p.Steps, Arms: make([]ArmResult, len(p.Arms))}
	arm := make(map[string]int, len(p.Arms))
	for i, name := range p.Arms {
		c.Arms[i] = ArmResult{Name: name, Seeds: []SeedResult{}, Base: p.Bases[name]}
		arm[name] = i
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return c, fmt.Errorf("experiment: %w", err)
	}
	failed, done := 0, 0
	var interrupted error
	startFailed := map[int64]string{} // seed -> why its start run failed
	startTrained := map[int64]bool{}  // seeds whose start run trained in this Run
	for i, job := range p.Jobs {
		if err := ctx.Err(); err != nil {
			interrupted = err
			break
		}
		var res SeedResult
		if why, ok := startFailed[job.Seed]; ok && !job.Start {
			res = SeedResult{Seed: job.Seed, ValSuccess: []Point{}, Error: "not run: the seed's start run failed: " + why}
			fmt.Fprintf(progress, "[%d/%d] %s seed %d: not run (the seed's start run failed)\n", i+1, len(p.Jobs), job.Arm, job.Seed)
		} else if kept, ok := finishedRun(opts, job); ok && !startTrained[job.Seed] {
			res = kept
			fmt.Fprintf(progress, "[%d/%d] %s seed %d: kept, finished earlier in %s\n", i+1, len(p.Jobs), job.Arm, job.Seed, job.Config.Trainer.OutputDir)
			log.Info("experiment: run kept", "experiment", p.Name, "arm", job.Arm, "seed", job.Seed, "dir", job.Config.Trainer.OutputDir)
		} else {
			fmt.Fprintf(progress, "[%d/%d] %s seed %d: training in %s\n", i+1, len(p.Jobs), job.Arm, job.Seed, job.Config.Trainer.OutputDir)
			log.Info("experiment: run", "experiment", p.Name, "arm", job.Arm, "seed", job.Seed, "dir", job.Config.Trainer.OutputDir)
			res = runJob(ctx, opts, job)
			if job.Start {
				// The seed's arms branch from this run's checkpoint: none
				// of theirs made before it can be kept.
				startTrained[job.Seed] = true
			}
		}
		if !res.OK() && ctx.Err() != nil {
			interrupted = ctx.Err()
			res.Error = "interrupted: " + res.Error
		}
		done++
		if job.Start {
			c.Starts = append(c.Starts, res)
			if res.Error != "" {
				startFailed[job.Seed] = res.Error
				failed++
				fmt.Fprintf(progress, "[%d/%d] start seed %d: FAILED after %s: %s\n", i+1, len(p.Jobs), job.Seed, formatSeconds(res.WallSeconds), res.Error)
				log.Warn("experiment: start run failed", "seed", job.Seed, "err", res.Error)
			} else {
				fmt.Fprintf(progress, "[%d/%d] start seed %d: done (%s)\n", i+1, len(p.Jobs), job.Seed, formatSeconds(res.WallSeconds))
			}
			c.WallSeconds = time.Since(began).Seconds()
			if err := p.writeResults(c); err != nil {
				return c, err
			}
			if interrupted != nil {
				break
			}
			continue
		}
		a := arm[job.Arm] // p.check saw every job's arm
		c.Arms[a].Seeds = append(c.Arms[a].Seeds, res)
		c.summarize()
		c.WallSeconds = time.Since(began).Seconds()
		if res.OK() {
			fmt.Fprintf(progress, "[%d/%d] %s seed %d: final validation success %.3f (%s)\n", i+1, len(p.Jobs), job.Arm, job.Seed, *res.Final, formatSeconds(res.WallSeconds))
			log.Info("experiment: run done", "arm", job.Arm, "seed", job.Seed, "final", *res.Final, "wall_s", res.WallSeconds)
		} else {
			failed++
			fmt.Fprintf(progress, "[%d/%d] %s seed %d: FAILED after %s: %s\n", i+1, len(p.Jobs), job.Arm, job.Seed, formatSeconds(res.WallSeconds), res.Error)
			log.Warn("experiment: run failed", "arm", job.Arm, "seed", job.Seed, "err", res.Error)
		}
		if err := p.writeResults(c); err != nil {
			return c, err
		}
		if interrupted != nil {
			break
		}
	}
	if done == 0 { // every run rewrote them; otherwise write them once
		if err := p.writeResults(c); err != nil {
			return c, err
		}
	}
	if opts.Output != nil {
		if err := WriteTable(opts.Output, c); err != nil {
			return c, err
		}
	}
	if interrupted != nil {
		return c, fmt.Errorf("experiment %s: interrupted after %d of %d runs: %w", p.Name, done, len(p.Jobs), interrupted)
	}
	if failed > 0 {
		return c, fmt.Errorf("%w: %d of %d runs of %s failed", ErrRunFailed, failed, len(p.Jobs), p.Name)
	}
	return c, nil
}

// check reports a plan Run must not carry out, before anything runs: a
// job of an arm the plan does not have, or one whose output directory (which
// Run empties) is not strictly inside p.Dir. NewPlan makes neither; a plan
// built or edited by hand may.
func (p Plan) check() error {
	if p.Dir == "" {
		return fmt.Errorf("%w: the plan has no output directory", ErrInvalid)
	}
	arms := make(map[string]bool, len(p.Arms))
	for _, a := range p.Arms {
		arms[a] = true
	}
	for i, job := range p.Jobs {
		if !job.Start && !arms[job.Arm] {
			return fmt.Errorf("%w: job %d names arm %q, which the plan does not have", ErrInvalid, i, job.Arm)
		}
		dir := job.Config.Trainer.OutputDir
		rel, err := filepath.Rel(filepath.Clean(p.Dir), filepath.Clean(dir))
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			return fmt.Errorf("%w: job %d (arm %q seed %d) writes to %q, which is not inside the experiment's directory %s",
				ErrInvalid, i, job.Arm, job.Seed, dir, p.Dir)
		}
	}
	return nil
}

// writeResults writes comparison.json and the plot; with nothing to plot it
// removes a stale plot so the two never disagree.
func (p Plan) writeResults(c Comparison) error {
	if err := c.WriteFile(filepath.Join(p.Dir, ComparisonFile)); err != nil {
		return err
	}
	plotPath := filepath.Join(p.Dir, PlotFile)
	err := WritePlot(plotPath, c)
	if errors.Is(err, ErrNoData) {
		if err := os.Remove(plotPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("experiment: %w", err)
		}
		return nil
	}
	return err
}

// runJob runs one job and reads its validation curve. A start run needs
// none: it trains no RL step, and its validation (when the configuration
// validates before training) only records where the seed's arms begin.
func runJob(ctx context.Context, opts Options, job Job) SeedResult {
	res := SeedResult{Seed: job.Seed, ValSuccess: []Point{}}
	dir := job.Config.Trainer.OutputDir
	if err := os.RemoveAll(dir); err != nil {
		res.Error = fmt.Sprintf("clean the output directory: %v", err)
		return res
	}
	if err := writeConfig(dir+".config.yaml", job.Config); err != nil {
		res.Error = err.Error()
		return res
	}
	began := time.Now()
	err := opts.train(ctx, job.Config)
	return readResult(job, err, time.Since(began).Seconds())
}

// finishedRun returns the results of job's run when opts.Resume is set and
// an earlier Run finished it with the same resolved configuration.
func finishedRun(opts Options, job Job) (SeedResult, bool) {
	if !opts.Resume {
		return SeedResult{}, false
	}
	dir := job.Config.Trainer.OutputDir
	summary, err := runlog.ReadSummary(filepath.Join(dir, trainer.SummaryFile))
	if err != nil {
		return SeedResult{}, false
	}
	saved, err := fsutil.ReadFile(dir+".config.yaml", maxConfigRecordBytes)
	if err != nil {
		return SeedResult{}, false
	}
	want, err := configRecord(job.Config)
	if err != nil || !bytes.Equal(saved, want) {
		return SeedResult{}, false
	}
	res := readResult(job, nil, summary.WallSeconds)
	return res, res.Error == ""
}

// maxConfigRecordBytes bounds the configuration record read back by
// finishedRun; resolved configurations are a few KiB.
const maxConfigRecordBytes = 4 << 20

// readResult reads the validation curve of job's run, which ended with err
// after wall seconds.
func readResult(job Job, err error, wall float64) SeedResult {
	res := SeedResult{Seed: job.Seed, ValSuccess: []Point{}, WallSeconds: wall}
	dir := job.Config.Trainer.OutputDir
	metrics, curveErr := readRun(filepath.Join(dir, metricsFile))
	curve := metrics.curve
	if curveErr == nil {
		res.ValSuccess = curve
		res.K, res.AvgAtK, res.BestAtK = metrics.k, metrics.avgAtK, metrics.bestAtK
		res.TurnsPerSuccess = metrics.turnsPerSuccess
	}
	switch {
	case err != nil:
		res.Error = errString(err)
	case job.Start && (curveErr != nil || len(curve) == 0):
	case curveErr != nil:
		res.Error = fmt.Sprintf("read the validation results: %v", curveErr)
	case len(curve) == 0:
		res.Error = fmt.Sprintf("the run logged no %s in %s", ValSuccessMetric, metricsFile)
	default:
		final := curve[len(curve)-1].Value
		res.Final = &final
	}
	return res
}

// writeConfig records a run's resolved configuration beside its output
// directory (not in it: the trainer starts in an empty directory).
func writeConfig(path string, cfg trainer.Config) error {
	data, err := configRecord(cfg)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFile(path, data); err != nil {
		return fmt.Errorf("write the configuration: %w", err)
	}
	return nil
}

// configRecord is the record of a run's resolved configuration that
// writeConfig writes.
func configRecord(cfg trainer.Config) ([]byte, error) {
	cfg.Env.Token = "" // a secret, not part of the record
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode the configuration: %w", err)
	}
	return data, nil
}

// train runs one job with opts.Train or the real trainer. A panic is
// turned into the run's error, so one broken run does not end the
// experiment.
func (o Options) train(ctx context.Context, cfg trainer.Config) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("training panicked: %v", r)
		}
	}()
	if o.Train != nil {
		return o.Train(ctx, cfg)
	}
	topts := trainer.Options{Logger: o.Logger}
	if o.TrainerOptions != nil {
		topts = o.TrainerOptions(cfg)
	}
	t, err := trainer.New(cfg, topts)
	if err != nil {
		return err
	}
	_, err = t.Fit(ctx)
	return err
}
