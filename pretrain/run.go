package pretrain

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/gomlx/gomlx/backends"
	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/models"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/tokenizer"
	"github.com/org/agentevolver/trainer/checkpoint"
	"github.com/org/agentevolver/trainer/optim"
	"golang.org/x/sync/errgroup"
)

// Files and directories under Config.OutputDir.
const (
	// ConfigFile is the resolved configuration.
	ConfigFile = "pretrain.yaml"
	// MetricsFile has one JSON line per step (loss, gradient norm,
	// learning rate, tokens) and per measurement (held-out success).
	MetricsFile = "pretrain.jsonl"
	// TokenizerDir holds the learnt tokenizer.
	TokenizerDir = "tokenizer"
	// CheckpointDir holds the newest checkpoint: state/ (weights and
	// optimiser state) and step.json.
	CheckpointDir = "checkpoint"
	// PolicyDir is the result: a Hugging Face directory with the card.
	PolicyDir = "policy"
)

// Options are the run's collaborators; the zero value is usable.
type Options struct {
	// Logger receives progress records; nil discards them.
	Logger *slog.Logger
	// Output shows progress bars when it is a terminal; nil shows none.
	Output io.Writer
	// Resume continues from the checkpoint in OutputDir instead of
	// refusing to start over an existing run.
	Resume bool
	// Overwrite starts afresh where a run already is.
	Overwrite bool

	// stopAt, when positive, interrupts training after that many steps
	// as a cancelled context would (tests of resuming).
	stopAt int
}

// Result is what a run produced.
type Result struct {
	// PolicyDir is the exported policy with its card.
	PolicyDir string
	// Card is the card written there.
	Card Card
}

// run is one pretraining run in progress.
type run struct {
	cfg     Config
	opts    Options
	log     *slog.Logger
	dir     string
	tok     *tokenizer.BPE
	tmpl    tokenizer.ChatTemplate
	pad     int
	ctxCfg  contextmgr.Config
	corpus  *corpus
	replay  *replayer
	drills  *drillMaker // nil without CorpusConfig.DrillShare
	eval    *evaluator
	m       *model.Model
	sft     *optim.Supervised
	metrics *runlog.MetricsWriter
	stats   CorpusStats
	// countedWindow is a sort window whose episodes the restored
	// statistics already count (a run resumed in its middle).
	countedWindow int
	// initDir is Config.InitFrom's directory, resolved by tokenizer for
	// newModel (empty without InitFrom, and when resuming).
	initDir string
	began   time.Time
	elapsed time.Duration // wall time of earlier sessions of a resumed run
}

// Run pretrains a base policy from scratch on the generated corpus and
// writes it, with its card, to OutputDir/policy. It checkpoints every
// Train.SaveEvery steps; with Options.Resume it continues from the newest
// checkpoint and gives the same weights as an uninterrupted run.
func Run(ctx context.Context, cfg Config, opts Options) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	r := &run{cfg: cfg, opts: opts, log: opts.Logger, dir: cfg.OutputDir, began: time.Now(), countedWindow: -1}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	defer r.close()
	step, err := r.open(ctx)
	if err != nil {
		return Result{}, err
	}
	if err := r.train(ctx, step); err != nil {
		return Result{}, err
	}
	return r.finish(ctx)
}

func (r *run) close() {
	if r.replay != nil {
		r.replay.close()
	}
	if r.eval != nil {
		r.eval.close()
	}
	if r.metrics != nil {
		_ = r.metrics.Close()
	}
}

// checkpointState is step.json.
type checkpointState struct {
	Step        int         `json:"step"`
	WallSeconds float64     `json:"wall_seconds"`
	Stats       CorpusStats `json:"corpus"`
}

// open prepares the directory, tokenizer, corpus, model and optimiser,
// restoring a checkpoint when resuming; it returns the next step.
func (r *run) open(ctx context.Context) (int, error) {
	resumeFrom := -1
	if r.opts.Resume {
		st, err := readCheckpointState(filepath.Join(r.dir, CheckpointDir))
		switch {
		case err == nil:
			resumeFrom = st.Step
			r.elapsed = time.Duration(st.WallSeconds * float64(time.Second))
			r.stats = st.Stats
		case errors.Is(err, fs.ErrNotExist):
		default:
			return 0, err
		}
	}
	if resumeFrom < 0 {
		if err := prepareDir(r.dir, r.opts.Overwrite); err != nil {
			return 0, err
		}
	} else if err := r.checkSavedConfig(); err != nil {
		return 0, err
	}
	if err := r.writeConfig(); err != nil {
		return 0, err
	}
	heldOut, err := heldOutInstructions(ctx, r.cfg)
	if err != nil {
		return 0, err
	}
	if r.corpus, err = newCorpus(ctx, r.cfg.Corpus, r.cfg.Seed, r.cfg.Context.SystemPrompt, heldOut); err != nil {
		return 0, err
	}
	if err := r.tokenizer(ctx, resumeFrom >= 0); err != nil {
		return 0, err
	}
	r.ctxCfg = contextmgr.Config{
		Tokenizer: r.tok, Template: r.tmpl,
		MaxModelLen: r.cfg.Context.MaxModelLen, ResponseLength: r.cfg.Context.ResponseLength,
		MaxEnvTokens: r.cfg.Context.MaxEnvLen, MaxPromptLen: r.cfg.Context.MaxPromptLen,
	}
	if r.replay, err = newReplayer(r.corpus.env, r.ctxCfg, r.log); err != nil {
		return 0, err
	}
	if r.cfg.Corpus.DrillShare > 0 {
		if r.drills, err = newDrillMaker(r.corpus); err != nil {
			return 0, err
		}
	}
	if r.eval, err = newEvaluator(ctx, r.cfg, r.ctxCfg, r.log); err != nil {
		return 0, err
	}
	backend, err := model.NewBackend(r.cfg.Backend)
	if err != nil {
		return 0, err
	}
	if err := r.newModel(ctx, backend); err != nil {
		return 0, err
	}
	t := r.cfg.Train
	r.sft, err = optim.NewSupervised(backend, r.m.Context(), optim.ModelPolicy(r.m), optim.SupervisedConfig{
		Optimizer:      optim.AdamWConfig{LearningRate: t.LR, WeightDecay: t.WeightDecay, NoWeightDecay: t.WeightDecay == 0},
		Clip:           optim.ClipConfig{MaxGradNorm: t.GradClip, NoClip: t.GradClip == 0},
		MicroBatchSize: t.MicroBatchSize,
		Logger:         r.log,
	})
	if err != nil {
		return 0, err
	}
	metricsPath := filepath.Join(r.dir, MetricsFile)
	if resumeFrom >= 0 {
		if err := checkpoint.LoadState(r.m.Context(), filepath.Join(r.dir, CheckpointDir, "state")); err != nil {
			return 0, err
		}
		if r.metrics, err = runlog.OpenForResume(metricsPath, int64(resumeFrom)); err != nil {
			return 0, err
		}
		r.countedWindow = -1
		if resumeFrom%r.cfg.Train.SortWindow != 0 {
			r.countedWindow = resumeFrom / r.cfg.Train.SortWindow
		}
		r.log.Info("pretrain: resumed", "step", resumeFrom)
		return resumeFrom, nil
	}
	if r.metrics, err = runlog.NewMetricsWriter(metricsPath); err != nil {
		return 0, err
	}
	return 0, nil
}

// prepareDir refuses to start over an existing run unless overwrite.
func prepareDir(dir string, overwrite bool) error {
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); err == nil {
		if !overwrite {
			return fmt.Errorf("%w: %s already holds a pretraining run; resume it or overwrite it", ErrConfig, dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("pretrain: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pretrain: %w", err)
	}
	return nil
}

func (r *run) writeConfig() error {
	data, err := yaml.Marshal(r.cfg)
	if err != nil {
		return fmt.Errorf("pretrain: %w", err)
	}
	return writeFileAtomic(filepath.Join(r.dir, ConfigFile), data)
}

// checkSavedConfig refuses to resume a run with another configuration
// (where the step budget and schedule may change nothing else).
func (r *run) checkSavedConfig() error {
	saved, err := LoadConfig([]string{filepath.Join(r.dir, ConfigFile)}, nil)
	if err != nil {
		return fmt.Errorf("pretrain: resume: %w", err)
	}
	a, b := saved, r.cfg
	a.Train.MaxMinutes, b.Train.MaxMinutes = 0, 0
	a.Train.StopStep, b.Train.StopStep = 0, 0
	a.Backend, b.Backend = "", ""
	ya, _ := yaml.Marshal(a)
	yb, _ := yaml.Marshal(b)
	if string(ya) != string(yb) {
		return fmt.Errorf("%w: resume: the configuration differs from the run's %s (only train.max_minutes and backend may change)", ErrConfig, ConfigFile)
	}
	return nil
}

// tokenizer learns the byte-level BPE vocabulary from the corpus's text
// (every world's system prompt, tasks, calls and observations, worked
// examples and the experience template), or loads it when resuming.
func (r *run) tokenizer(ctx context.Context, resume bool) error {
	path := filepath.Join(r.dir, TokenizerDir)
	if resume {
		tok, err := tokenizer.Load(path)
		if err != nil {
			return fmt.Errorf("pretrain: learned tokenizer: %w", err)
		}
		return r.setTokenizer(tok)
	}
	if r.cfg.InitFrom != "" {
		dir, err := models.Resolve(r.cfg.InitFrom)
		if err != nil {
			return fmt.Errorf("%w: init_from: %w", ErrConfig, err)
		}
		r.initDir = dir
		tok, err := tokenizer.Load(dir)
		if err != nil {
			return fmt.Errorf("pretrain: init_from %s: tokenizer: %w", r.cfg.InitFrom, err)
		}
		if err := tok.Save(path); err != nil {
			return fmt.Errorf("pretrain: save tokenizer: %w", err)
		}
		return r.setTokenizer(tok)
	}
	text, err := r.corpus.text(ctx)
	if err != nil {
		return err
	}
	pattern := tokenizer.WordPattern
	if r.cfg.TokenizerPattern == "qwen" {
		pattern = tokenizer.QwenPattern
	}
	tok, err := tokenizer.TrainBPE(text, tokenizer.TrainOptions{VocabSize: r.cfg.TokenizerVocab, Pattern: pattern})
	if err != nil {
		return fmt.Errorf("pretrain: learn tokenizer: %w", err)
	}
	if err := tok.Save(path); err != nil {
		return fmt.Errorf("pretrain: save tokenizer: %w", err)
	}
	return r.setTokenizer(tok)
}

func (r *run) setTokenizer(tok *tokenizer.BPE) error {
	tmpl, err := tok.ChatTemplate()
	if err != nil {
		return fmt.Errorf("pretrain: chat template: %w", err)
	}
	r.tok, r.tmpl = tok, tmpl
	r.pad, _ = tokenizer.PadID(tok)
	return nil
}

// newModel makes the policy: random weights from the seed, or the weights
// of Config.InitFrom, whose shape must be Config.Shape's. A resumed run's
// weights are the checkpoint's, loaded later over either.
func (r *run) newModel(ctx context.Context, backend backends.Backend) error {
	want := r.cfg.Shape.ModelConfig(r.tok.VocabSize())
	if r.initDir == "" { // no InitFrom, or resuming
		m, err := model.New(want, r.cfg.Seed, model.Options{Backend: backend})
		if err != nil {
			return fmt.Errorf("pretrain: new policy: %w", err)
		}
		r.m = m
		return nil
	}
	m, err := model.Load(ctx, r.initDir, model.Options{Backend: backend, Logger: r.log})
	if err != nil {
		return fmt.Errorf("pretrain: init_from %s: %w", r.cfg.InitFrom, err)
	}
	if got := m.Config(); !sameShape(got, want) {
		return fmt.Errorf("%w: init_from %s has shape %s; shape asks for %s", ErrConfig, r.cfg.InitFrom, shapeText(got), shapeText(want))
	}
	r.m = m
	r.log.Info("pretrain: continuing from a policy", "init_from", r.cfg.InitFrom)
	return nil
}

// sameShape reports whether two configurations make the same tensors and
// the same function (the fields Shape sets, defaults applied).
func sameShape(a, b model.Config) bool {
	kv := func(c model.Config) int { return cmp.Or(c.NumKeyValueHeads, c.NumAttentionHeads) }
	theta := func(c model.Config) float64 { return cmp.Or(c.RopeTheta, 10000) }
	return a.VocabSize == b.VocabSize && a.HiddenSize == b.HiddenSize && a.NumHiddenLayers == b.NumHiddenLayers &&
		a.NumAttentionHeads == b.NumAttentionHeads && kv(a) == kv(b) && a.IntermediateSize == b.IntermediateSize &&
		theta(a) == theta(b) && a.TieWordEmbeddings == b.TieWordEmbeddings
}

func shapeText(c model.Config) string {
	return fmt.Sprintf("vocab %d, hidden %d, %d layers, %d heads (%d key/value), MLP %d, rope theta %g, tied %t",
		c.VocabSize, c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, cmp.Or(c.NumKeyValueHeads, c.NumAttentionHeads),
		c.IntermediateSize, cmp.Or(c.RopeTheta, 10000), c.TieWordEmbeddings)
}

// lr is the learning rate of step: a linear warm-up, then a cosine decay
// from LR to MinLR at the last step.
func (t TrainConfig) lr(step int) float64 {
	if step < t.WarmupSteps {
		return t.LR * float64(step+1) / float64(t.WarmupSteps)
	}
	span := max(1, t.Steps-t.WarmupSteps)
	frac := min(1, float64(step-t.WarmupSteps)/float64(span))
	return t.MinLR + (t.LR-t.MinLR)*0.5*(1+math.Cos(math.Pi*frac))
}

// train takes the supervised steps from step on.
func (r *run) train(ctx context.Context, step int) error {
	t := r.cfg.Train
	bar := runlog.NewProgress(r.opts.Output, int64(t.Steps), runlog.ProgressOptions{Description: "pretrain"})
	bar.Add(int64(step))
	var (
		window     = -1
		batches    [][]agentevolver.Sample
		sinceSave  = step
		lastLogged = time.Now()
	)
	for ; step < t.Steps; step++ {
		if err := ctx.Err(); err != nil {
			return r.stopped(err, step)
		}
		if r.opts.stopAt > 0 && step == r.opts.stopAt {
			return r.stopped(context.Canceled, step)
		}
		if t.StopStep > 0 && step >= t.StopStep {
			r.log.Info("pretrain: stop step reached", "step", step)
			break
		}
		if t.MaxMinutes > 0 && r.wall().Minutes() >= t.MaxMinutes {
			r.log.Info("pretrain: time budget reached", "step", step, "max_minutes", t.MaxMinutes)
			break
		}
		if w := step / t.SortWindow; w != window {
			var err error
			if batches, err = r.window(ctx, w); err != nil {
				return r.stopped(err, step)
			}
			window = w
		}
		batch, err := optim.SupervisedBatchOf(batches[step%t.SortWindow], r.pad)
		if err != nil {
			return err
		}
		if err := r.sft.SetLearningRate(t.lr(step)); err != nil {
			return err
		}
		began := time.Now()
		m, err := r.sft.Step(ctx, batch)
		if err != nil {
			return r.stopped(fmt.Errorf("pretrain: step %d: %w", step+1, err), step)
		}
		rows := len(batches[step%t.SortWindow])
		r.stats.Steps, r.stats.TrainedTokens = step+1, r.stats.TrainedTokens+int64(m.Tokens)
		if err := r.metrics.Write(int64(step+1), map[string]float64{
			"pretrain/loss": m.Loss, "pretrain/grad_norm": m.GradNorm, "pretrain/lr": m.LR,
			"pretrain/tokens": m.Tokens, "pretrain/rows": float64(rows),
			"pretrain/width": float64(len(batch.InputIDs[0])), "timing/step_s": time.Since(began).Seconds(),
		}); err != nil {
			return err
		}
		bar.Describe(fmt.Sprintf("pretrain loss %.3f", m.Loss))
		bar.Add(1)
		if time.Since(lastLogged) > time.Minute {
			r.log.Info("pretrain: step", "step", step+1, "loss", m.Loss, "lr", m.LR, "minutes", r.wall().Minutes())
			lastLogged = time.Now()
		}
		if t.EvalEvery > 0 && (step+1)%t.EvalEvery == 0 {
			if err := r.quickEval(ctx, step+1); err != nil {
				return r.stopped(err, step+1)
			}
		}
		if t.SaveEvery > 0 && step+1-sinceSave >= t.SaveEvery {
			if err := r.save(step + 1); err != nil {
				return err
			}
			sinceSave = step + 1
		}
	}
	bar.Finish()
	return r.save(step)
}

// stopped checkpoints after an interruption so that the run can resume.
func (r *run) stopped(err error, step int) error {
	if serr := r.save(step); serr != nil {
		return errors.Join(err, serr)
	}
	return err
}

// wall is the run's wall time over all its sessions.
func (r *run) wall() time.Duration { return r.elapsed + time.Since(r.began) }

// window builds the batches of sort window w: SortWindow × BatchSize
// episodes, sorted by length and cut into batches, which train in that
// order: consecutive steps then mostly share a shape, and on the pure-Go
// backend a step of another shape than the last costs seconds (its
// buffers are made anew), several times a step's own compute.
func (r *run) window(ctx context.Context, w int) ([][]agentevolver.Sample, error) {
	t := r.cfg.Train
	n := t.SortWindow * t.BatchSize
	samples := make([][]agentevolver.Sample, n)
	specs := make([]episodeSpec, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() error {
			sp, err := r.corpus.spec(gctx, int64(w)*int64(n)+int64(i))
			if err != nil {
				return err
			}
			if sp.drill {
				x, err := r.drills.sample(gctx, r.ctxCfg, r.cfg.Context.SystemPrompt, sp.drillSeed)
				if err != nil {
					return err
				}
				samples[i], specs[i] = []agentevolver.Sample{x}, sp
				return nil
			}
			distractors := -1
			if sp.focus {
				distractors = r.cfg.Corpus.FocusDistractors
			}
			res, err := r.replay.replayEpisode(gctx, sp.taskID, sp.examples, distractors)
			// Examples that leave no room in the context are dropped,
			// the last first, as a pool's top-k would be cut.
			for tooLong(err) && len(sp.examples) > 0 {
				sp.examples = sp.examples[:len(sp.examples)-1]
				sp.relevant = sp.relevant && len(sp.examples) > 0
				res, err = r.replay.replayEpisode(gctx, sp.taskID, sp.examples, distractors)
			}
			if errors.Is(err, errEpisodeTruncated) {
				// Too long even alone: nothing of it is trained on.
				r.log.Warn("pretrain: an episode does not fit the context window; left out", "task", sp.taskID, "max_model_len", r.cfg.Context.MaxModelLen)
				sp.skipped = true
				specs[i] = sp
				return nil
			}
			if err != nil {
				return err
			}
			samples[i], specs[i] = res.Samples, sp
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var flat []agentevolver.Sample
	for i, s := range samples {
		for _, x := range s {
			flat = append(flat, wholeSequence(x, t.LossOnAll))
		}
		if w != r.countedWindow {
			r.stats.add(specs[i], s)
		}
	}
	slices.SortStableFunc(flat, func(a, b agentevolver.Sample) int {
		return cmp.Compare(len(a.PromptIDs)+len(a.ResponseIDs), len(b.PromptIDs)+len(b.ResponseIDs))
	})
	batches := make([][]agentevolver.Sample, t.SortWindow)
	per := (len(flat) + t.SortWindow - 1) / t.SortWindow
	for i := range batches {
		lo, hi := min(i*per, len(flat)), min((i+1)*per, len(flat))
		batches[i] = flat[lo:hi]
	}
	for i, b := range batches {
		if len(b) == 0 {
			return nil, fmt.Errorf("pretrain: window %d batch %d is empty", w, i)
		}
	}
	// Batches train in a random order: shortest first made the steps of a
	// window walk from one kind of episode to another, and a model so
	// trained stopped learning (see TrainConfig.SortWindow).
	rng := rand.New(rand.NewPCG(uint64(r.cfg.Seed)^windowStream, uint64(w)))
	rng.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
	return batches, nil
}

// quickEval measures greedy held-out success without examples.
func (r *run) quickEval(ctx context.Context, step int) error {
	policy, err := model.NewPolicy(r.m, r.tok, r.tmpl, model.PolicyOptions{})
	if err != nil {
		return err
	}
	levels, err := r.eval.measure(ctx, policy, r.cfg.Eval.QuickTasksPerLevel, []string{CondNone})
	if err != nil {
		return err
	}
	vals := map[string]float64{}
	for _, l := range levels {
		vals[fmt.Sprintf("heldout/level%d", l.Level)] = l.None
	}
	r.log.Info("pretrain: held-out success", "step", step, "level1", vals["heldout/level1"], "level2", vals["heldout/level2"], "level3", vals["heldout/level3"])
	return r.metrics.Write(int64(step), vals)
}

// save writes the checkpoint of step into a fresh directory and then
// swaps it for the previous one, so that a crash leaves one whole
// checkpoint (the new one, the previous one, or the previous one under
// checkpoint.old, which a resume does not read: a crash right between the
// two renames loses the checkpoint, not the run's directory).
func (r *run) save(step int) error {
	root := filepath.Join(r.dir, CheckpointDir)
	tmp := root + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("pretrain: checkpoint: %w", err)
	}
	if err := checkpoint.SaveState(r.m.Context(), filepath.Join(tmp, "state")); err != nil {
		return err
	}
	data, err := json.MarshalIndent(checkpointState{Step: step, WallSeconds: r.wall().Seconds(), Stats: r.stats}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "step.json"), data, 0o644); err != nil {
		return fmt.Errorf("pretrain: checkpoint: %w", err)
	}
	if err := r.metrics.Sync(); err != nil {
		return err
	}
	old := root + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(root, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pretrain: checkpoint: %w", err)
	}
	if err := os.Rename(tmp, root); err != nil {
		return fmt.Errorf("pretrain: checkpoint: %w", err)
	}
	_ = os.RemoveAll(old)
	r.log.Info("pretrain: checkpoint", "step", step)
	return nil
}

// readCheckpointState reads dir/step.json.
func readCheckpointState(dir string) (checkpointState, error) {
	data, err := os.ReadFile(filepath.Join(dir, "step.json"))
	if err != nil {
		return checkpointState{}, err
	}
	var st checkpointState
	if err := json.Unmarshal(data, &st); err != nil || st.Step < 0 {
		return checkpointState{}, fmt.Errorf("pretrain: checkpoint %s: bad step.json", dir)
	}
	return st, nil
}

// finish exports the policy, measures it as exported and writes its card.
func (r *run) finish(ctx context.Context) (Result, error) {
	dir := filepath.Join(r.dir, PolicyDir)
	dtype := model.ExportBFloat16
	if r.cfg.ExportDType == "f32" {
		dtype = model.ExportFloat32
	}
	res, err := r.m.Export(ctx, dir, model.ExportOptions{DType: dtype, Tokenizer: r.tok})
	if err != nil {
		return Result{}, fmt.Errorf("pretrain: export: %w", err)
	}
	wall := r.wall()
	card := Card{
		Config: r.cfg, Corpus: r.stats, WallSeconds: wall.Seconds(),
		Machine:     machine(),
		Parameters:  res.WeightBytes / int64(map[bool]int{true: 2, false: 4}[dtype == model.ExportBFloat16]),
		WeightBytes: res.WeightBytes,
		VocabSize:   r.tok.VocabSize(),
		Template:    experience.DefaultTemplate,
	}
	if card.FinalLoss, err = lastLoss(filepath.Join(r.dir, MetricsFile)); err != nil {
		return Result{}, err
	}
	if err := measureCard(ctx, &card, dir, r.eval, r.log); err != nil {
		return Result{}, err
	}
	if err := card.Write(dir); err != nil {
		return Result{}, err
	}
	data, err := yaml.Marshal(r.cfg)
	if err != nil {
		return Result{}, err
	}
	if err := writeFileAtomic(filepath.Join(dir, ConfigFile), data); err != nil {
		return Result{}, err
	}
	return Result{PolicyDir: dir, Card: card}, nil
}

// machine describes the CPU the run used.
func machine() string {
	return fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}

// lastLoss reads the last logged loss.
func lastLoss(path string) (float64, error) {
	recs, err := runlog.ReadMetrics(path)
	if err != nil {
		return 0, err
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if v, ok := recs[i].Values["pretrain/loss"]; ok {
			return v, nil
		}
	}
	return 0, nil // no training step: a run that only measures its init_from policy
}

// writeFileAtomic writes data to path through a temporary file.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("pretrain: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("pretrain: %w", err)
	}
	return nil
}

// CorpusStats count what the run imitated.
type CorpusStats struct {
	Steps         int   `json:"steps"`
	Episodes      int64 `json:"episodes"`
	Tokens        int64 `json:"tokens"`
	TrainedTokens int64 `json:"trained_tokens"`
	// ByLevel counts episodes per task level (hindsight tasks by the
	// level toolworld gives them).
	ByLevel [4]int64 `json:"by_level"`
	// Hindsight counts episodes of hindsight tasks; WithExamples those
	// with worked examples in the prompt, Relevant those whose examples
	// include a relevant one.
	Hindsight    int64 `json:"hindsight"`
	WithExamples int64 `json:"with_examples"`
	Relevant     int64 `json:"relevant"`
	// Focused counts episodes whose tool list was cut (the curriculum).
	Focused int64 `json:"focused"`
	// Skipped counts episodes left out because the expert's episode does
	// not fit the context window even without worked examples.
	Skipped int64 `json:"skipped,omitempty"`
	// Drills counts copy drills (CorpusConfig.DrillShare); they count in
	// Episodes and Tokens but in no level.
	Drills int64 `json:"drills,omitempty"`
}

func (s *CorpusStats) add(sp episodeSpec, samples []agentevolver.Sample) {
	if sp.skipped {
		s.Skipped++
		return
	}
	s.Episodes++
	if sp.drill {
		s.Drills++
	}
	if sp.level >= 1 && sp.level < len(s.ByLevel) {
		s.ByLevel[sp.level]++
	}
	for _, x := range samples {
		s.Tokens += int64(len(x.PromptIDs) + len(x.ResponseIDs))
	}
	if sp.hindsight {
		s.Hindsight++
	}
	if len(sp.examples) > 0 {
		s.WithExamples++
	}
	if sp.relevant {
		s.Relevant++
	}
	if sp.focus {
		s.Focused++
	}
}

// windowStream separates the order of a window's batches from the
// corpus's random streams.
const windowStream = 0x5eed_0f_ba7c4e5

// tooLong reports a replay whose prompt, first or later, does not fit the
// context window.
func tooLong(err error) bool {
	return errors.Is(err, agentflow.ErrPromptTooLong) || errors.Is(err, contextmgr.ErrPromptTooLong) || errors.Is(err, errEpisodeTruncated)
}

// wholeSequence lays a sample out as one sequence: its first token as the
// prompt and every other token as the response, the loss mask zero on
// what was the prompt (one on every token with all). The loss is the same (the same tokens at the same
// positions, imitated where the policy wrote them), but a batch's shape
// then depends on one length instead of two: a trainer compiles one graph
// per shape, and the prompt and response lengths of a varied corpus would
// otherwise make dozens of shapes (more than the graph cache holds).
func wholeSequence(s agentevolver.Sample, all bool) agentevolver.Sample {
	ids := append(append([]int(nil), s.PromptIDs...), s.ResponseIDs...)
	mask := make([]int, len(ids)-1)
	copy(mask[len(s.PromptIDs)-1:], s.ResponseLossMask)
	if all {
		for i := range mask {
			mask[i] = 1
		}
	}
	return agentevolver.Sample{
		TaskID: s.TaskID, DataID: s.DataID, RolloutID: s.RolloutID,
		PromptIDs: ids[:1], ResponseIDs: ids[1:], ResponseLossMask: mask,
	}
}
