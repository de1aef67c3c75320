package cues

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/runlog"
)

// Pipeline runs CuES over one environment type: requirement confirmation,
// Stage 1 (curious exploration), Stage 2 (task abstraction), Stage 3
// (quality control), the query rewrite and the export, each resuming
// from what its Store already holds.
//
// Env, Model and Store are required. A Pipeline is not safe for
// concurrent use: run one at a time per Store.
type Pipeline struct {
	// Config is the run's configuration; zero values are defaults.
	Config Config
	// Env serves the environment: an envclient.Client for a remote env
	// service, an envservice.Manager for built-in environments in process.
	Env envclient.Env
	// Model answers every prompt. Its own retries handle transport
	// failures; the pipeline repeats empty replies (Config.ChatAttempts).
	Model llm.ChatModel
	// Store is the output directory.
	Store *Store
	// Synthesizer, when set, is the environment's hindsight relabelling
	// (AbstractHindsight and CheckHindsight). Nil means the one Env
	// serves in process (an envservice.Manager whose environment
	// implements envservice.TaskSynthesizer), if any.
	Synthesizer envservice.TaskSynthesizer
	// Progress, when set, shows each stage's progress (a bar on a
	// terminal, plain lines otherwise).
	Progress io.Writer
	// Logger receives diagnostics (nil: discard).
	Logger *slog.Logger
	// Now is the clock (nil: time.Now), for timestamps and the session.
	Now func() time.Time

	cfg     Config
	session string
	synth   envservice.TaskSynthesizer
}

// Session is what session.json holds.
type Session struct {
	SessionID string    `json:"session_id"`
	StartTime time.Time `json:"start_time"`
	Config    Config    `json:"config"`
}

// ErrUnreachable reports an environment or a model that does not answer
// at the start of a run; its message says what to fix.
var ErrUnreachable = errors.New("cues: unreachable")

// Init checks the configuration, opens or creates the session and probes
// the environment and the model: an environment with no task in the split
// or a model that cannot answer fails here, before any work, with what to
// fix. Run calls it; the stage methods need it first.
func (p *Pipeline) Init(ctx context.Context) error {
	if p.Env == nil || p.Model == nil || p.Store == nil {
		return fmt.Errorf("%w: a Pipeline needs an Env, a Model and a Store", ErrConfig)
	}
	cfg, err := p.Config.withDefaults()
	if err != nil {
		return err
	}
	p.cfg = cfg
	if p.Logger == nil {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	p.synth = p.Synthesizer
	if p.synth == nil {
		if m, ok := p.Env.(*envservice.Manager); ok {
			if e, ok := m.Environment(cfg.EnvType); ok {
				p.synth, _ = e.(envservice.TaskSynthesizer)
			}
		}
	}
	if cfg.Stage2.Method == AbstractHindsight && p.synth == nil {
		return fmt.Errorf("%w: stage2.method hindsight needs an environment that relabels episodes (envservice.TaskSynthesizer, in process); %s does not, or is remote", ErrConfig, cfg.EnvType)
	}
	if cfg.Stage3.EnvCheck == CheckHindsight && p.synth == nil {
		return fmt.Errorf("%w: stage3.env_check hindsight needs an environment that relabels episodes (envservice.TaskSynthesizer, in process); %s does not, or is remote: use replay", ErrConfig, cfg.EnvType)
	}
	if err := p.openSession(); err != nil {
		return err
	}
	ids, err := p.Env.TaskIDs(ctx, cfg.EnvType, cfg.Split)
	if err != nil {
		return fmt.Errorf("%w: environment %s: listing the %s tasks failed: %w (is the env service running and does it serve %s?)",
			ErrUnreachable, cfg.EnvType, cfg.Split, err, cfg.EnvType)
	}
	if len(ids) == 0 {
		return fmt.Errorf("%w: environment %s has no %s tasks to explore; choose another split", ErrConfig, cfg.EnvType, cfg.Split)
	}
	probe := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Reply with OK."}}
	if _, err := p.Model.Chat(ctx, probe, llm.ChatOptions{MaxTokens: 8, Temperature: llm.Float(0)}); err != nil {
		return fmt.Errorf("%w: the model did not answer a probe: %w (check the endpoint's URL, model name and API key)", ErrUnreachable, err)
	}
	return nil
}

// openSession reads session.json, or writes a new one.
func (p *Pipeline) openSession() error {
	var s Session
	ok, err := p.Store.ReadJSON("session.json", &s)
	if err != nil {
		return err
	}
	if ok && s.SessionID != "" {
		if p.cfg.Session != "" && p.cfg.Session != s.SessionID {
			return fmt.Errorf("%w: %s belongs to session %s, not %s; choose another output directory", ErrConfig, p.Store.Root(), s.SessionID, p.cfg.Session)
		}
		p.session = s.SessionID
		return nil
	}
	p.session = p.cfg.Session
	if p.session == "" {
		now := p.Now()
		p.session = now.Format("20060102_150405_") + fmt.Sprintf("%03d", now.Nanosecond()/1e6)
	}
	if safeName(p.session) != p.session {
		return fmt.Errorf("%w: session %q: use letters, digits, '.', '_' and '-'", ErrConfig, p.session)
	}
	return p.Store.WriteJSON("session.json", Session{SessionID: p.session, StartTime: p.Now(), Config: p.cfg})
}

// SessionID returns the session (after Init).
func (p *Pipeline) SessionID() string { return p.session }

// Run runs every stage in order, skipping finished work, and returns the
// run's statistics (also written to statistics.json).
func (p *Pipeline) Run(ctx context.Context) (Stats, error) {
	if err := p.Init(ctx); err != nil {
		return Stats{}, err
	}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"requirement confirmation", p.Confirm},
		{"stage 1", p.Explore},
		{"stage 2", p.Abstract},
		{"stage 3", p.Verify},
		{"query rewrite", p.RewriteQueries},
		{"export", p.Export},
	}
	for _, s := range steps {
		if err := s.run(ctx); err != nil {
			st, _ := p.Statistics()
			return st, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return p.Statistics()
}

// chat asks the model, repeating a failed or empty answer up to
// ChatAttempts times (the reference's chat_with_retry); it returns the
// last error when every attempt failed and "" when every answer was
// empty. seed seeds the first attempt (the next ones add 1 each).
func (p *Pipeline) chat(ctx context.Context, msgs []agentevolver.Message, maxTokens int, seed int64) (string, error) {
	opts := llm.ChatOptions{Temperature: p.cfg.Temperature, MaxTokens: p.cfg.MaxTokens}
	if maxTokens > 0 {
		opts.MaxTokens = maxTokens
	}
	var lastErr error
	for a := range p.cfg.ChatAttempts {
		s := seed + int64(a)
		opts.Seed = &s
		c, err := p.Model.Chat(ctx, msgs, opts)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			lastErr = err
			p.Logger.Debug("cues: model request failed", "attempt", a+1, "err", err)
			continue
		}
		if text := strings.TrimSpace(c.Message.Content); text != "" {
			return c.Message.Content, nil
		}
		lastErr = nil
	}
	if lastErr != nil {
		return "", fmt.Errorf("cues: model: %w", lastErr)
	}
	return "", nil
}

// chatEnv asks the model in the environment's own prompt: base (the
// initial messages) and the last envWindow messages of convo. A request
// that fails is repeated with fewer of convo's messages (two at a time,
// down to none), so that a model with a short context (the in-process
// policy refuses a prompt longer than its positions) still answers late
// in an episode.
func (p *Pipeline) chatEnv(ctx context.Context, base, convo []agentevolver.Message, seed int64) (string, error) {
	var lastErr error
	for w := min(envWindow, len(convo)); ; w = max(w-2, 0) {
		msgs := append(slices.Clone(base), convo[len(convo)-w:]...)
		reply, err := p.chat(ctx, msgs, 0, seed)
		if err == nil || ctx.Err() != nil {
			return reply, err
		}
		lastErr = err
		if w == 0 {
			return "", lastErr
		}
	}
}

// seedOf derives a seed from the run's seed and a path of labels.
func (p *Pipeline) seedOf(parts ...any) int64 {
	h := sha256.Sum256(fmt.Append(nil, append([]any{p.cfg.Seed}, parts...)...))
	return int64(binary.LittleEndian.Uint64(h[:8]) >> 1)
}

// idOf derives an 8-hex-digit id from labels, so that a resumed run names
// the same things the same way.
func idOf(parts ...any) string {
	h := sha256.Sum256(fmt.Append(nil, parts...))
	return hex.EncodeToString(h[:4])
}

// progress returns a progress display for a stage.
func (p *Pipeline) progress(desc string, total int) *runlog.Progress {
	if p.Progress == nil {
		return nil
	}
	return runlog.NewProgress(p.Progress, int64(total), runlog.ProgressOptions{Description: desc})
}

// envDescription is what the prompts show of an instance's initial
// messages: all of them but the final user message (the environment's own
// task, which exploration must not follow and re-execution replaces), or
// the only one. The reference shows AppWorld's system prompt cut before
// its last "\nTask:", which cuts the in-prompt worked example instead of
// the task ([BUG/QUIRK] fixed by dropping the task message itself).
func envDescription(state []agentevolver.Message) string {
	msgs := state
	if n := len(msgs); n > 1 && msgs[n-1].Role == agentevolver.RoleUser {
		msgs = msgs[:n-1]
	}
	var parts []string
	for _, m := range msgs {
		if c := strings.TrimSpace(m.Content); c != "" {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, "\n\n")
}

// observation joins the contents of a step's messages. Structured
// observations stay text: the reference stores Python dict reprs for
// BFCL and WebShop ([BUG/QUIRK] fixed).
func observation(res envclient.StepResult) string {
	var parts []string
	for _, m := range res.State {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, "\n")
}

// release frees an instance even when ctx has ended.
func (p *Pipeline) release(ctx context.Context, id string) {
	if id == "" {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := p.Env.Release(rctx, id); err != nil {
		p.Logger.Warn("cues: release failed", "instance", id, "err", err)
	}
}

// create starts an instance of taskID and returns its id and initial
// messages.
func (p *Pipeline) create(ctx context.Context, taskID string, params map[string]any) (string, []agentevolver.Message, error) {
	init, err := p.Env.Create(ctx, p.cfg.EnvType, taskID, "", params)
	if err != nil {
		return "", nil, fmt.Errorf("create %s: %w", taskID, err)
	}
	id := init.InstanceID()
	if id == "" {
		return "", nil, fmt.Errorf("create %s: %w: no instance id", taskID, envclient.ErrBadResponse)
	}
	return id, init.State, nil
}
