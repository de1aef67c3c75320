package attribution

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
)

// SkipRule decides, before any call, which episodes an LLMJudge leaves
// unjudged (reference §7.3, skip_type). A skipped episode gets
// OutcomeFlags. The values are the reference's names.
type SkipRule string

const (
	// SkipNone judges every episode: the zero SkipRule, and what the
	// reference's shipped configuration uses.
	SkipNone SkipRule = "none"
	// SkipSmallAdvantage skips an episode whose GRPO advantage at its first
	// trainable token is below 1e-8 in magnitude (Episode.FirstAdvantage),
	// as in a GRPO group where every rollout scored the same. It saves the
	// request; the uniform labels it gets then z-score to no process
	// reward within the group.
	//
	// The reference reads the advantage at the first position of the
	// response mask, the blacked-out assistant header, whose advantage is
	// always 0, so its rule skips every sample ([BUG/QUIRK], reference
	// §7.3 and Appendix A.5) and ADCA degenerates to uniform outcome-sign
	// labels. Episode.FirstAdvantage is the first token that trains, as
	// the rule intends.
	SkipSmallAdvantage SkipRule = "skip_small_adv"
	// SkipAllNegative skips an episode whose outcome is not positive
	// (Outcome <= 0): only successes are judged.
	SkipAllNegative SkipRule = "skip_all_neg"
)

// Defaults of LLMJudgeConfig.
const (
	// DefaultJudgeConcurrency is the number of judge requests in flight at
	// once, the reference's semaphore of 20.
	DefaultJudgeConcurrency = 20
	// DefaultJudgeAttempts bounds the requests per episode, the first
	// included. The reference's 200 attempts, with waits of up to 60 s,
	// could hold a training step for hours on one sample, while a sample
	// that cannot be judged only falls back to its outcome's sign. Four
	// cover the reference's refusal rule (a second refusal ends the
	// episode) and three waits after rate limits or outages; clients such
	// as llm/openai retry transient failures on their own inside each
	// attempt as well.
	DefaultJudgeAttempts = 4
	// DefaultJudgeCallTimeout bounds one request, the reference's 120 s.
	DefaultJudgeCallTimeout = 120 * time.Second
	// DefaultJudgeMaxTokens bounds the judge's answer, the reference's
	// max_tokens. Reasoning models spend most of it thinking.
	DefaultJudgeMaxTokens = 8192
)

// smallAdvantage is the reference's threshold of SkipSmallAdvantage.
const smallAdvantage = 1e-8

// LLMJudgeConfig configures an LLMJudge. The zero value is the reference's
// judge with its shipped skip rule (none).
type LLMJudgeConfig struct {
	// Skip chooses the episodes left unjudged; "" means SkipNone.
	Skip SkipRule
	// MaxConcurrency bounds the requests in flight at once; 0 means
	// DefaultJudgeConcurrency.
	MaxConcurrency int
	// MaxAttempts bounds the requests per episode, the first included; 0
	// means DefaultJudgeAttempts.
	MaxAttempts int
	// CallTimeout bounds each request; 0 means DefaultJudgeCallTimeout,
	// negative means no bound of the judge's own (the caller's context and
	// the model client's timeouts still apply). A request that runs past it
	// counts as an outage (llm.ErrUnavailable) and is retried.
	CallTimeout time.Duration
	// MaxTokens bounds the judge's answer; 0 means DefaultJudgeMaxTokens.
	MaxTokens int
	// MaxStepChars bounds each action and observation in the prompt, in
	// code points; 0 means DefaultMaxStepChars.
	MaxStepChars int
	// Logger receives a warning per fallback, debug records per retry and
	// an info record per batch. Nil discards them.
	Logger *slog.Logger
}

// LLMJudge is the reference's step judge (§7.2-7.3) over any llm.ChatModel:
// one request per episode, never one per step, with the prompt of
// StepEvalMessages at temperature 0, and the answer's thinking stripped
// before ParseJudgments reads it. The endpoint, the judge model (the
// reference's qwen-max on DashScope) and vendor switches such as
// DashScope's enable_thinking are the model client's configuration
// (llm/openai.Config).
//
// An episode falls back to OutcomeFlags, with Judgment.Err saying why,
// when its answer cannot be parsed, when the model refuses twice (a
// refusal or a content-moderation block is retried once, as the reference
// does, then gives ErrRefused), when a request fails in a way no retry can
// mend (a prompt longer than the context window, an exhausted quota, a
// rejected request such as a bad key), or when its attempts run out; an
// endpoint outage leaves an Err matching llm.ErrUnavailable, so a caller
// can tell a judge that is down from one that answers badly.
// Between attempts it waits: after a rate limit, the server's Retry-After
// when the error carries one, else b + U(0, b/4) with b = min(1.5^attempt,
// 60) seconds; after other failures min(2·(attempt+1), 15) seconds, as the
// reference does. Episodes with no steps are skipped without a request.
//
// Unlike the reference, episodes are not gathered in chunks of 100: every
// episode starts as soon as a slot of MaxConcurrency frees, so one slow
// answer holds up no others. An LLMJudge is safe for concurrent use; its
// concurrency bound is per Judge call.
type LLMJudge struct {
	model llm.ChatModel
	cfg   LLMJudgeConfig
	log   *slog.Logger
	// sleep waits between attempts; tests replace it to observe the waits
	// without spending them.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter draws U(0, 1) for the rate-limit backoff.
	jitter func() float64
}

var _ Judge = (*LLMJudge)(nil)

// NewLLMJudge returns a judge asking model. It fails on a nil model, an
// unknown skip rule or a negative setting.
func NewLLMJudge(model llm.ChatModel, cfg LLMJudgeConfig) (*LLMJudge, error) {
	if model == nil {
		return nil, errors.New("attribution: LLM judge needs a model")
	}
	switch cfg.Skip {
	case "":
		cfg.Skip = SkipNone
	case SkipNone, SkipSmallAdvantage, SkipAllNegative:
	default:
		return nil, fmt.Errorf("attribution: unknown skip rule %q (want %q, %q or %q)", cfg.Skip, SkipNone, SkipSmallAdvantage, SkipAllNegative)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxConcurrency", cfg.MaxConcurrency}, {"MaxAttempts", cfg.MaxAttempts}, {"MaxTokens", cfg.MaxTokens}, {"MaxStepChars", cfg.MaxStepChars}} {
		if f.v < 0 {
			return nil, fmt.Errorf("attribution: LLM judge %s %d is negative", f.name, f.v)
		}
	}
	if cfg.MaxConcurrency == 0 {
		cfg.MaxConcurrency = DefaultJudgeConcurrency
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultJudgeAttempts
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = DefaultJudgeCallTimeout
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultJudgeMaxTokens
	}
	if cfg.MaxStepChars == 0 {
		cfg.MaxStepChars = DefaultMaxStepChars
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LLMJudge{model: model, cfg: cfg, log: log, sleep: retry.Sleep, jitter: rand.Float64}, nil
}

// Config returns the judge's configuration with defaults filled in.
func (j *LLMJudge) Config() LLMJudgeConfig { return j.cfg }

// Judge labels the steps of each episode; see LLMJudge for how. It returns
// an error, and no judgments, only when ctx ends before every episode is
// judged.
func (j *LLMJudge) Judge(ctx context.Context, episodes []Episode) ([]Judgment, error) {
	out := make([]Judgment, len(episodes))
	var todo []int // the episodes to ask about
	for i, ep := range episodes {
		if j.skip(ep) {
			out[i] = skipped(ep)
		} else {
			todo = append(todo, i)
		}
	}
	var aborted atomic.Bool
	err := parallel.ForEach(ctx, len(todo), j.cfg.MaxConcurrency, func(k int) {
		i := todo[k]
		var ok bool
		if out[i], ok = j.judgeOne(ctx, episodes[i]); !ok {
			aborted.Store(true)
		}
	})
	if err != nil || aborted.Load() {
		return nil, fmt.Errorf("attribution: judging %d episodes: %w", len(episodes), context.Cause(ctx))
	}
	j.logBatch(ctx, out)
	return out, nil
}

// skip applies the skip rule; an episode without steps has nothing to
// judge.
func (j *LLMJudge) skip(ep Episode) bool {
	switch {
	case len(ep.Steps) == 0:
		return true
	case j.cfg.Skip == SkipSmallAdvantage:
		return !(math.Abs(ep.FirstAdvantage) >= smallAdvantage) // NaN skips too
	case j.cfg.Skip == SkipAllNegative:
		return !(ep.Outcome > 0)
	}
	return false
}

// judgeOne judges one episode; ok is false when ctx ended it.
func (j *LLMJudge) judgeOne(ctx context.Context, ep Episode) (res Judgment, ok bool) {
	began := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res, ok = fallback(ep, res, fmt.Errorf("attribution: judge model panicked: %v", r)), ctx.Err() == nil
		}
		res.Elapsed = time.Since(began)
	}()
	msgs := StepEvalMessages(ep.Query, ep.Steps, RescaleScore(ep.Outcome), j.cfg.MaxStepChars)
	res.Prompt = msgs
	answer, err := j.ask(ctx, msgs, &res)
	if ctx.Err() != nil {
		return res, false
	}
	if err != nil {
		j.log.WarnContext(ctx, "attribution: judge failed; labelling the steps by the outcome",
			"task_id", ep.TaskID, "steps", len(ep.Steps), "calls", res.Calls, "err", err)
		return fallback(ep, res, err), true
	}
	res.Response = answer
	flags, err := ParseJudgments(answer, len(ep.Steps))
	if err != nil {
		j.log.WarnContext(ctx, "attribution: judge answer unparsable; labelling the steps by the outcome",
			"task_id", ep.TaskID, "steps", len(ep.Steps), "answer", clipText(answer, 200), "err", err)
		return fallback(ep, res, err), true
	}
	res.Good, res.Source = flags, SourceJudged
	return res, true
}

// ask sends msgs until an answer comes or the attempts are spent, adding
// the calls and their usage to res. It returns the answer with its
// thinking stripped.
func (j *LLMJudge) ask(ctx context.Context, msgs []agentevolver.Message, res *Judgment) (string, error) {
	opts := llm.ChatOptions{Temperature: llm.Float(0), MaxTokens: j.cfg.MaxTokens}
	refusals := 0
	for attempt := 0; ; attempt++ {
		comp, err := j.chat(ctx, msgs, opts)
		res.Calls++
		res.PromptTokens += comp.PromptTokens
		res.CompletionTokens += comp.CompletionTokens
		if err == nil {
			return stripThinking(comp.Message.Content), nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		f := classify(err)
		res.PromptTokens += f.promptTokens
		res.CompletionTokens += f.completionTokens
		switch f.kind {
		case failFinal:
			return "", err
		case failRefusal:
			if refusals++; refusals >= 2 {
				return "", fmt.Errorf("%w: %w", ErrRefused, err)
			}
		}
		if attempt+1 >= j.cfg.MaxAttempts {
			return "", fmt.Errorf("attribution: judge gave up after %d attempts: %w", attempt+1, err)
		}
		wait := otherWait(attempt)
		if f.kind == failRateLimit {
			wait = rateLimitWait(attempt, f.retryAfter, j.jitter())
		}
		j.log.DebugContext(ctx, "attribution: retrying judge request",
			"attempt", attempt+2, "attempts", j.cfg.MaxAttempts, "wait", wait, "err", err)
		if err := j.sleep(ctx, wait); err != nil {
			return "", err
		}
	}
}

// chat makes one request under the judge's call timeout. A request that
// runs past it is reported as an outage.
func (j *LLMJudge) chat(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	if j.cfg.CallTimeout <= 0 {
		return j.model.Chat(ctx, msgs, opts)
	}
	callCtx, cancel := context.WithTimeout(ctx, j.cfg.CallTimeout)
	defer cancel()
	comp, err := j.model.Chat(callCtx, msgs, opts)
	if err != nil && ctx.Err() == nil && callCtx.Err() != nil {
		err = fmt.Errorf("attribution: judge request ran past %s: %w: %w", j.cfg.CallTimeout, llm.ErrUnavailable, err)
	}
	return comp, err
}

// logBatch summarises a judged batch.
func (j *LLMJudge) logBatch(ctx context.Context, out []Judgment) {
	var judged, fallbacks, skips, calls, prompt, completion int
	for _, r := range out {
		switch r.Source {
		case SourceJudged:
			judged++
		case SourceFallback:
			fallbacks++
		case SourceSkipped:
			skips++
		}
		calls += r.Calls
		prompt += r.PromptTokens
		completion += r.CompletionTokens
	}
	j.log.InfoContext(ctx, "attribution: judged batch", "episodes", len(out), "judged", judged,
		"fallback", fallbacks, "skipped", skips, "calls", calls, "prompt_tokens", prompt, "completion_tokens", completion)
}

// clipText shortens s to about n bytes for a log record.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
