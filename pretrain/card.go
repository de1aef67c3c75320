package pretrain

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
)

// Files of a policy directory beside the Hugging Face files.
const (
	// CardFile is the card as JSON, read by Check.
	CardFile = "card.json"
	// ReadmeFile is the card for people.
	ReadmeFile = "README.md"
)

// maxCardBytes bounds a card file.
const maxCardBytes = 1 << 20

// Card describes a pretrained policy: how it was made and what it does on
// worlds it never saw.
type Card struct {
	// Config is the run's configuration: re-running it reproduces the
	// policy.
	Config Config `json:"config"`
	// Corpus counts what the policy imitated.
	Corpus CorpusStats `json:"corpus"`
	// WallSeconds is the training's wall time; Machine the computer's.
	WallSeconds float64 `json:"wall_seconds"`
	Machine     string  `json:"machine"`
	// Parameters and WeightBytes size the exported weights.
	Parameters  int64 `json:"parameters"`
	WeightBytes int64 `json:"weight_bytes"`
	// VocabSize is the tokenizer's vocabulary (Config.TokenizerVocab, or
	// Config.InitFrom's); 0 in cards written before it was recorded.
	VocabSize int `json:"vocab_size,omitempty"`
	// FinalLoss is the last step's loss (0 after no step).
	FinalLoss float64 `json:"final_loss"`
	// Template is the experience template the worked examples came in.
	Template string `json:"experience_template"`
	// Success is the greedy held-out success per level and condition,
	// measured on the exported weights.
	Success []LevelSuccess `json:"success"`
	// Check is a small fixed measurement that Check reproduces exactly.
	Check CheckRecord `json:"check"`
}

// CheckRecord is the outcome of every task of a fixed held-out set, greedy
// and without examples.
type CheckRecord struct {
	Tasks  []string `json:"tasks"`
	Solved []bool   `json:"solved"`
}

// Success is the share of solved tasks.
func (c CheckRecord) Success() float64 { return rate(c.Solved) }

// measureCard measures the exported policy in dir: the card's success
// table and its check.
func measureCard(ctx context.Context, card *Card, dir string, ev *evaluator, log *slog.Logger) error {
	policy, err := loadPolicy(ctx, dir, "")
	if err != nil {
		return err
	}
	log.Info("pretrain: measuring the exported policy", "dir", dir)
	if card.Success, err = ev.measure(ctx, policy, card.Config.Eval.TasksPerLevel, []string{CondNone, CondRelevant, CondUnrelated}); err != nil {
		return err
	}
	tasks, err := ev.checkTasks(ctx, card.Config.Eval.CheckTasks)
	if err != nil {
		return err
	}
	solved, err := ev.success(ctx, policy, tasks, CondNone)
	if err != nil {
		return err
	}
	card.Check = CheckRecord{Tasks: tasks, Solved: solved}
	return nil
}

// loadPolicy loads the policy directory dir (weights and tokenizer) as a
// chat model on backend.
func loadPolicy(ctx context.Context, dir, backend string) (*model.Policy, error) {
	b, err := model.NewBackend(backend)
	if err != nil {
		return nil, err
	}
	m, err := model.Load(ctx, dir, model.Options{Backend: b})
	if err != nil {
		return nil, fmt.Errorf("pretrain: load %s: %w", dir, err)
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("pretrain: load %s: %w", dir, err)
	}
	tmpl, err := tok.ChatTemplate()
	if err != nil {
		return nil, err
	}
	return model.NewPolicy(m, tok, tmpl, model.PolicyOptions{})
}

// ReadCard reads dir's card.json.
func ReadCard(dir string) (Card, error) {
	data, err := fsutil.ReadFile(filepath.Join(dir, CardFile), maxCardBytes)
	if err != nil {
		return Card{}, fmt.Errorf("pretrain: card: %w", err)
	}
	var c Card
	if err := json.Unmarshal(data, &c); err != nil {
		return Card{}, fmt.Errorf("pretrain: card %s: %w", dir, err)
	}
	if len(c.Check.Tasks) != len(c.Check.Solved) {
		return Card{}, fmt.Errorf("pretrain: card %s: %d check tasks but %d outcomes", dir, len(c.Check.Tasks), len(c.Check.Solved))
	}
	return c, c.Config.Validate()
}

// CheckOptions configure Check.
type CheckOptions struct {
	// Backend is the GoMLX backend ("" = $GOMLX_BACKEND or pure Go).
	Backend string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Check loads the policy in dir and replays its card's check: every task
// of the recorded set, greedy, without examples. It returns the record it
// measured, and an error matching ErrCheckMismatch, naming the tasks, when
// any outcome differs from the recorded one: the shipped weights and the
// code that runs them must not drift apart.
func Check(ctx context.Context, dir string, opts CheckOptions) (CheckRecord, error) {
	card, err := ReadCard(dir)
	if err != nil {
		return CheckRecord{}, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	policy, err := loadPolicy(ctx, dir, opts.Backend)
	if err != nil {
		return CheckRecord{}, err
	}
	bpe, err := tokenizer.Load(dir)
	if err != nil {
		return CheckRecord{}, err
	}
	tmpl, err := bpe.ChatTemplate()
	if err != nil {
		return CheckRecord{}, err
	}
	cc := card.Config.Context
	ev, err := newEvaluator(ctx, card.Config, contextmgr.Config{
		Tokenizer: bpe, Template: tmpl, MaxModelLen: cc.MaxModelLen, ResponseLength: cc.ResponseLength,
		MaxEnvTokens: cc.MaxEnvLen, MaxPromptLen: cc.MaxPromptLen,
	}, log)
	if err != nil {
		return CheckRecord{}, err
	}
	defer ev.close()
	solved, err := ev.success(ctx, policy, card.Check.Tasks, CondNone)
	if err != nil {
		return CheckRecord{}, err
	}
	got := CheckRecord{Tasks: card.Check.Tasks, Solved: solved}
	if !slices.Equal(solved, card.Check.Solved) {
		var diff []string
		for i, id := range card.Check.Tasks {
			if solved[i] != card.Check.Solved[i] {
				diff = append(diff, fmt.Sprintf("%s (recorded %v, now %v)", id, card.Check.Solved[i], solved[i]))
			}
		}
		return got, fmt.Errorf("%w: %s", ErrCheckMismatch, strings.Join(diff, ", "))
	}
	return got, nil
}

// Write writes card.json and README.md into dir.
func (c Card) Write(dir string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("pretrain: card: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, CardFile), append(data, '\n')); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, ReadmeFile), []byte(c.Markdown()))
}

// Markdown renders the card for people.
func (c Card) Markdown() string {
	var b strings.Builder
	cfg := c.Config
	s := cfg.Shape
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# toolworld base policy\n\n")
	if cfg.InitFrom != "" {
		p("A small Qwen2-family policy pretrained by `agentevolver pretrain`, continuing from `%s`, on generated\n", cfg.InitFrom)
	} else {
		p("A small Qwen2-family policy pretrained from scratch by `agentevolver pretrain` on generated\n")
	}
	p("toolworld episodes, so that reinforcement learning starts from a model that already follows the\n")
	switch {
	case cfg.Corpus.Worlds > 0 && cfg.Corpus.ValuesOnly:
		p("tool-call format, copies values from its prompt and acts in worlds whose values it never saw; what\n")
		p("worked examples in its context do is measured below.\n\n")
	case cfg.Corpus.Worlds > 0:
		p("tool-call format, reads the tools its prompt lists and uses worked examples in its context.\n\n")
	default:
		p("tool-call format and knows toolworld's tools; what worked examples in its context do is measured below.\n\n")
	}
	p("## Model\n\n")
	vocab, learnt := cfg.TokenizerVocab, "learnt from the corpus"
	if c.VocabSize > 0 {
		vocab = c.VocabSize
	}
	if cfg.InitFrom != "" {
		learnt = "of " + cfg.InitFrom
	}
	p("- %d layers, hidden size %d, %d heads (%d key/value heads), MLP %d, vocabulary %d (byte-level BPE %s), context %d tokens\n",
		s.NumLayers, s.HiddenSize, s.NumHeads, s.NumKVHeads, s.IntermediateSize, vocab, learnt, s.MaxPositions)
	p("- %s parameters, %.1f MB of %s weights\n", humanCount(c.Parameters), float64(c.WeightBytes)/1e6, cfg.ExportDType)
	p("- seed %d; %d steps of %d episodes; wall time %s on %s\n\n", cfg.Seed, c.Corpus.Steps, cfg.Train.BatchSize, minutes(c.WallSeconds), c.Machine)
	p("## Corpus\n\n")
	co := cfg.Corpus
	if co.Worlds > 0 && co.ValuesOnly {
		p("Episodes of the expert on %d worlds (world seed %d) that vary only their values: each world draws its own\n", co.Worlds, co.WorldSeed)
		p("people, event titles, texts and file names, and keeps the classic app, API and argument names and the\n")
		p("one-line system prompt. ")
		if co.Drift > 0 {
			p("Each world renames each API but task.finish with chance %.0f%% without saying so (toolworld's\n", 100*co.Drift)
			p("drift): its prompt still knows the old names, and only a worked example of the world shows the new ones. ")
		}
	} else if co.Worlds > 0 {
		p("Episodes of the expert on %d varied worlds (world seed %d): each world draws its own app, API and\n", co.Worlds, co.WorldSeed)
		p("argument names, descriptions, tool order, people, files and texts, and lists its tools in the\n")
		p("system prompt. ")
	} else {
		p("Episodes of the expert on toolworld's classic world (its own app, API and argument names; the\n")
		p("system prompt is one line, so the policy knows the tools by heart rather than reading them), over\n")
		p("%d generated tasks per split; the held-out tasks below are left out of the corpus and its examples. ", co.TasksPerSplit)
		if co.ReserveShare > 0 {
			p("%.0f%% of all instructions (toolworld.ReservedInstruction) are reserved: left out of the corpus and its examples, for reinforcement learning to practise on tasks never imitated (the trainer's env.toolworld.train_reserved: %v). ", 100*co.ReserveShare, co.ReserveShare)
		}
	}
	p("%.0f%% of the episodes solve hindsight tasks (the goal a random walk of 1 to %d calls\n", 100*co.HindsightShare, co.WalkSteps)
	p("reached); %.0f%% carry 1 to %d worked examples in the trainer's experience template, %.0f%% of those\n", 100*co.ExampleShare, co.MaxExamples, 100*co.RelevantShare)
	p("led by examples of the same task family (%.0f%% of them the task's own solution), the rest unrelated.\n", 100*co.SameTaskShare)
	if co.FocusStart > 0 {
		p("A curriculum cuts the tool list of %.0f%% of the first episodes to the tools the expert calls and %d others,\n", 100*co.FocusStart, co.FocusDistractors)
		p("falling linearly to none at episode %d (%d episodes in all).\n", co.FocusEpisodes, c.Corpus.Focused)
	}
	if co.DrillShare > 0 {
		p("%.0f%% of the episodes are copy drills (%d in all): repeat some of the corpus's words, or call a named\n", 100*co.DrillShare, c.Corpus.Drills)
		p("tool with the values a list of pairs gives its arguments; only copying from the prompt solves them.\n")
	}
	if c.Corpus.Skipped > 0 {
		p("%d episodes were left out: the expert's calls did not fit the context window even without worked examples.\n", c.Corpus.Skipped)
	}
	p("\n")
	cs := c.Corpus
	p("| episodes | tokens | trained tokens | level 1 / 2 / 3 | hindsight | with examples | with a relevant one |\n|---|---|---|---|---|---|---|\n")
	p("| %d | %s | %s | %d / %d / %d | %d | %d | %d |\n\n", cs.Episodes, humanCount(cs.Tokens), humanCount(cs.TrainedTokens),
		cs.ByLevel[1], cs.ByLevel[2], cs.ByLevel[3], cs.Hindsight, cs.WithExamples, cs.Relevant)
	if c.Corpus.Steps > 0 {
		p("Final loss %.4f (token-mean negative log-likelihood of the expert's calls).\n\n", c.FinalLoss)
	} else {
		p("No training step: this card measures the policy the run continued from.\n\n")
	}
	p("## Held-out success\n\n")
	if cfg.Eval.Worlds > 0 {
		p("Greedy success on %d worlds never seen in pretraining (world seed %d), %d tasks per level, with no\n", cfg.Eval.Worlds, cfg.Eval.WorldSeed, cfg.Eval.TasksPerLevel)
		p("worked example, with the worked example of a task of the same family in the same world, and with one of\n")
	} else {
		p("Greedy success on %d held-out tasks per level (toolworld seed %d: the validation split of the trainer's\n", cfg.Eval.TasksPerLevel, cfg.Seed)
		p("main job, which starts from this policy), never imitated nor shown as examples in pretraining, with no\n")
		p("worked example, with the worked example of another task of the same family, and with one of\n")
	}
	p("an unrelated family (tasks with no such example run without):\n\n")
	p("| level | none | relevant example | unrelated example |\n|---|---|---|---|\n")
	for _, l := range c.Success {
		p("| %d | %.1f%% | %.1f%% (%d of %d with one) | %.1f%% (%d of %d with one) |\n", l.Level, 100*l.None,
			100*l.Relevant, l.WithRelevant, l.Tasks, 100*l.Unrelated, l.WithUnrelated, l.Tasks)
	}
	p("\nThe effect of an example, in points (relevant / unrelated minus none): ")
	for i, l := range c.Success {
		if i > 0 {
			p("; ")
		}
		p("level %d %+.0f / %+.0f", l.Level, 100*(l.Relevant-l.None), 100*(l.Unrelated-l.None))
	}
	p(". The targets are a relevant example +10 points or more and an unrelated one no lower than -3.\n")
	if cfg.Eval.Worlds > 0 && cfg.Eval.Drift > 0 {
		p("Each held-out world renames each API but task.finish with chance %.0f%% without saying so, so a\n", 100*cfg.Eval.Drift)
		p("worked example of the world is the only place its new names show.\n")
	}
	p("\nLevel 1 asks for one call (and the answer of a question), level 2 for two or three independent\n")
	p("calls, level 3 for chained calls where a later call needs a value an earlier one read.\n\n")
	p("## Check\n\n")
	p("`pretrain.Check` replays %d fixed held-out tasks greedily and must solve exactly the recorded ones\n", len(c.Check.Tasks))
	p("(%.1f%% here); a test runs it on every change. Re-running `agentevolver pretrain --config\n", 100*c.Check.Success())
	p("pretrain.yaml` with this configuration reproduces the weights, and so these figures, on the same\n")
	p("backend; on another CPU or backend the last bits of the arithmetic may differ, which moves the figures\n")
	p("within their noise (a few points on %d tasks).", cfg.Eval.TasksPerLevel)
	if cfg.Train.MaxMinutes > 0 && c.Corpus.Steps < cfg.Train.Steps {
		p(" This run stopped at its time budget (train.max_minutes %.0f) after %d of its %d\n", cfg.Train.MaxMinutes, c.Corpus.Steps, cfg.Train.Steps)
		p("steps: a faster or slower machine stops elsewhere; for the same weights add `--set train.max_minutes=0\n")
		p("--set train.stop_step=%d`.", c.Corpus.Steps)
	}
	p("\n")
	return b.String()
}

func humanCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func minutes(sec float64) string { return fmt.Sprintf("%.0f min", sec/60) }
