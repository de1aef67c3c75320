package experience

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/llm"
)

// Defaults of LLMSummarizerConfig.
const (
	// DefaultMaxLessons bounds the lessons kept from one answer.
	DefaultMaxLessons = 3
	// DefaultMaxLessonChars bounds each lesson, in code points: a lesson
	// is injected into prompts, three at a time by default (reference §5.5
	// retrieve_top_k).
	DefaultMaxLessonChars = 300
	// DefaultSummaryStepChars bounds each action and observation shown to
	// the model, in code points.
	DefaultSummaryStepChars = 500
	// DefaultSummarySteps bounds the steps shown per trajectory: the first
	// half and the last half of a longer one, the middle left out.
	DefaultSummarySteps = 16
	// DefaultSummaryBatch bounds the trajectories of one task per request,
	// the reference's summary_batch_size.
	DefaultSummaryBatch = 8
	// DefaultSummaryConcurrency bounds the requests in flight, the
	// reference's thread pool of 8 workers.
	DefaultSummaryConcurrency = 8
	// DefaultSummaryMaxTokens bounds the model's answer. The lessons need
	// a few hundred tokens; the rest is room for a reasoning model's
	// thinking.
	DefaultSummaryMaxTokens = 4096
)

// LLMSummarizerConfig configures an LLMSummarizer. The zero value gives at
// most three lessons of at most 300 characters per task, greedy decoding
// and eight requests at once.
type LLMSummarizerConfig struct {
	// MaxLessons bounds the lessons kept per request; 0 means
	// DefaultMaxLessons.
	MaxLessons int
	// MaxLessonChars bounds each lesson, in code points (longer ones are
	// cut); 0 means DefaultMaxLessonChars.
	MaxLessonChars int
	// MaxStepChars bounds the task and each action and observation in the
	// prompt, in code points; 0 means DefaultSummaryStepChars.
	MaxStepChars int
	// MaxSteps bounds the steps shown per trajectory; 0 means
	// DefaultSummarySteps.
	MaxSteps int
	// BatchSize bounds the trajectories of one task sent in one request; a
	// larger group is sent in several. 0 means DefaultSummaryBatch.
	BatchSize int
	// MaxConcurrency bounds the requests in flight at once; 0 means
	// DefaultSummaryConcurrency.
	MaxConcurrency int
	// Temperature of the requests; 0 is greedy decoding.
	Temperature float64
	// MaxTokens bounds each answer; 0 means DefaultSummaryMaxTokens.
	MaxTokens int
	// Logger receives a warning per failed group, a debug record per
	// request and an info record per call. Nil discards them.
	Logger *slog.Logger
}

// LLMSummarizer distils lessons from finished episodes with a language
// model, in the spirit of ReMe's task memory (which the reference calls as
// a service, §5.5): it learns from successes (what made them work),
// failures (the mistake and what to do instead) and their contrast.
//
// Summarize groups the trajectories by task (TaskID, or the task's text
// when the id is empty), in task order, and cuts each group into batches
// of at most BatchSize, as the reference's summarize_in_batch does (§5.6).
// Each batch is one request: a system message with the instructions and a
// user message with the task, each trajectory's actions and observations
// (clipped to MaxStepChars and MaxSteps) and its outcome. The model must
// answer with at most MaxLessons lines "LESSON: <one sentence>", or NONE;
// see ParseLessons for how the answer is read. Every lesson becomes an
// Experience with Text the lesson, Key the task's query (the first user
// message, without any experience injected into it), TaskID the group's
// task, Score the batch's mean outcome and Source SourceLLM; ID and
// Created are left for the store.
//
// Trajectories that failed in the environment or the model (Error),
// discarded ones, those with a non-finite outcome and those without an
// action are left out. The system prompt of an episode is not shown: the
// actions and observations say what the environment is.
//
// A batch whose request fails or whose answer cannot be parsed gives no
// experiences; Summarize then returns the other batches' experiences
// together with a *SummaryError listing the failures. An endpoint outage
// (an error matching llm.ErrUnavailable) stops new requests: the batches
// not yet sent fail with the same cause rather than each waiting out the
// outage. The summariser does not retry; model clients such as llm/openai
// retry transient failures themselves. A panicking model fails its batch.
// When ctx ends before every request is answered, Summarize returns no
// experiences and an error matching ctx's.
//
// An LLMSummarizer is safe for concurrent use; its concurrency bound is
// per Summarize call.
type LLMSummarizer struct {
	model llm.ChatModel
	cfg   LLMSummarizerConfig
	log   *slog.Logger
}

var _ Summarizer = (*LLMSummarizer)(nil)

// NewLLMSummarizer returns a summariser asking model. It fails on a nil
// model and on a negative or non-finite setting.
func NewLLMSummarizer(model llm.ChatModel, cfg LLMSummarizerConfig) (*LLMSummarizer, error) {
	if model == nil {
		return nil, errors.New("experience: LLM summariser needs a model")
	}
	for _, f := range []struct {
		name  string
		field *int
		def   int
	}{
		{"MaxLessons", &cfg.MaxLessons, DefaultMaxLessons},
		{"MaxLessonChars", &cfg.MaxLessonChars, DefaultMaxLessonChars},
		{"MaxStepChars", &cfg.MaxStepChars, DefaultSummaryStepChars},
		{"MaxSteps", &cfg.MaxSteps, DefaultSummarySteps},
		{"BatchSize", &cfg.BatchSize, DefaultSummaryBatch},
		{"MaxConcurrency", &cfg.MaxConcurrency, DefaultSummaryConcurrency},
		{"MaxTokens", &cfg.MaxTokens, DefaultSummaryMaxTokens},
	} {
		switch {
		case *f.field < 0:
			return nil, fmt.Errorf("experience: LLM summariser %s %d is negative", f.name, *f.field)
		case *f.field == 0:
			*f.field = f.def
		}
	}
	if cfg.Temperature < 0 || math.IsNaN(cfg.Temperature) || math.IsInf(cfg.Temperature, 0) {
		return nil, fmt.Errorf("experience: LLM summariser Temperature %v is not a finite number >= 0", cfg.Temperature)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LLMSummarizer{model: model, cfg: cfg, log: log}, nil
}

// Config returns the summariser's configuration with defaults filled in.
func (s *LLMSummarizer) Config() LLMSummarizerConfig { return s.cfg }

// summaryBatch is the trajectories of one task sent in one request.
type summaryBatch struct {
	taskID string
	eps    []summaryEpisode
}

// Summarize implements Summarizer; see LLMSummarizer for how.
func (s *LLMSummarizer) Summarize(ctx context.Context, trajectories []agentevolver.Trajectory) ([]Experience, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("experience: summarising: %w", err)
	}
	batches := s.batches(trajectories)
	results := make([][]Experience, len(batches))
	errs := make([]error, len(batches))
	var (
		mu      sync.Mutex
		outage  error // the first outage; no request is sent after it
		aborted atomic.Bool
	)
	err := parallel.ForEach(ctx, len(batches), s.cfg.MaxConcurrency, func(i int) {
		mu.Lock()
		stopped := outage
		mu.Unlock()
		if stopped != nil {
			errs[i] = fmt.Errorf("not sent after an endpoint outage: %w", stopped)
			return
		}
		results[i], errs[i] = s.summarizeBatch(ctx, batches[i])
		if errs[i] != nil && ctx.Err() != nil {
			aborted.Store(true)
		}
		if errors.Is(errs[i], llm.ErrUnavailable) {
			mu.Lock()
			if outage == nil {
				outage = errs[i]
			}
			mu.Unlock()
		}
	})
	if err != nil || aborted.Load() {
		return nil, fmt.Errorf("experience: summarising %d trajectories: %w", len(trajectories), ctx.Err())
	}
	var (
		out    []Experience
		failed []*GroupError
	)
	for i, b := range batches {
		if errs[i] != nil {
			failed = append(failed, &GroupError{TaskID: b.taskID, Trajectories: len(b.eps), Err: errs[i]})
			continue
		}
		out = append(out, results[i]...)
	}
	s.log.InfoContext(ctx, "experience: summarised trajectories", "trajectories", len(trajectories),
		"requests", len(batches), "failed", len(failed), "lessons", len(out))
	if len(failed) > 0 {
		return out, &SummaryError{Groups: len(batches), Failed: failed}
	}
	return out, nil
}

// batches groups the usable trajectories by task, in task order, each
// group in input order and cut into batches of at most BatchSize.
func (s *LLMSummarizer) batches(trajectories []agentevolver.Trajectory) []summaryBatch {
	groups := map[string][]summaryEpisode{}
	for _, t := range trajectories {
		ep, ok := viewEpisode(t)
		if !ok {
			continue
		}
		id := cmp.Or(ep.taskID, ep.key)
		groups[id] = append(groups[id], ep)
	}
	var out []summaryBatch
	for _, id := range slices.Sorted(maps.Keys(groups)) {
		for chunk := range slices.Chunk(groups[id], s.cfg.BatchSize) {
			out = append(out, summaryBatch{taskID: id, eps: chunk})
		}
	}
	return out
}

// summarizeBatch asks for the lessons of one batch.
func (s *LLMSummarizer) summarizeBatch(ctx context.Context, b summaryBatch) (exps []Experience, err error) {
	defer func() {
		if r := recover(); r != nil {
			exps, err = nil, fmt.Errorf("experience: summary model panicked: %v", r)
		}
	}()
	msgs := s.messages(b.eps)
	comp, err := s.model.Chat(ctx, msgs, llm.ChatOptions{Temperature: llm.Float(s.cfg.Temperature), MaxTokens: s.cfg.MaxTokens})
	if err != nil {
		if ctx.Err() == nil {
			s.log.WarnContext(ctx, "experience: summary request failed", "task_id", b.taskID, "err", err)
		}
		return nil, err
	}
	lessons, err := ParseLessons(comp.Message.Content, s.cfg.MaxLessons, s.cfg.MaxLessonChars)
	if err != nil {
		if comp.FinishReason == "length" {
			err = fmt.Errorf("%w (the answer reached MaxTokens %d)", err, s.cfg.MaxTokens)
		}
		s.log.WarnContext(ctx, "experience: summary answer unparsable", "task_id", b.taskID,
			"finish_reason", comp.FinishReason, "err", err)
		return nil, err
	}
	s.log.DebugContext(ctx, "experience: summarised task", "task_id", b.taskID,
		"trajectories", len(b.eps), "lessons", len(lessons))
	var score float64
	for _, ep := range b.eps {
		score += ep.outcome
	}
	score /= float64(len(b.eps))
	exps = make([]Experience, len(lessons))
	for i, l := range lessons {
		exps[i] = Experience{Text: l, Key: b.eps[0].key, TaskID: b.eps[0].taskID, Score: score, Source: SourceLLM}
	}
	return exps, nil
}

// summarySystem is the system message of a summary request; %[1]d is the
// number of lessons, %[2]d their length.
const summarySystem = `You turn an agent's attempts at a task into short lessons that will help an agent with this task, and tasks like it, next time.

You receive the task and one or more attempts. Each attempt lists the agent's actions, what the environment answered to each, and the attempt's outcome (1 = solved, 0 = failed, in between = partly solved).

Write at most %[1]d lessons:
- from a solved attempt: the steps, order or checks that made it work;
- from a failed attempt: the mistake and what to do instead;
- where attempts differ: what set the better ones apart.
Each lesson is one self-contained sentence of at most %[2]d characters. Be specific about actions, argument formats and the order of steps; stay general enough to help with a similar task.

Answer with one line per lesson, each line starting with "LESSON: ", and nothing else. If the attempts teach nothing reusable, answer NONE.`

// messages builds the request of one batch.
func (s *LLMSummarizer) messages(eps []summaryEpisode) []agentevolver.Message {
	var b strings.Builder
	b.WriteString("### Task\n")
	b.WriteString(clipCodePoints(eps[0].task, s.cfg.MaxStepChars))
	for i, ep := range eps {
		fmt.Fprintf(&b, "\n\n### Attempt %d (outcome %s, %s)", i+1, formatOutcome(ep.outcome), outcomeVerdict(ep.outcome))
		s.writeSteps(&b, ep.steps)
	}
	fmt.Fprintf(&b, "\n\nWrite at most %d lessons, one per line, each starting with \"LESSON: \", or answer NONE.", s.cfg.MaxLessons)
	return []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: fmt.Sprintf(summarySystem, s.cfg.MaxLessons, s.cfg.MaxLessonChars)},
		{Role: agentevolver.RoleUser, Content: b.String()},
	}
}

// writeSteps writes an attempt's steps, leaving the middle out of one
// longer than MaxSteps.
func (s *LLMSummarizer) writeSteps(b *strings.Builder, steps []summaryStep) {
	head, tail := len(steps), 0
	if len(steps) > s.cfg.MaxSteps {
		head = s.cfg.MaxSteps / 2
		tail = s.cfg.MaxSteps - head
	}
	write := func(i int) {
		st := steps[i]
		n := strconv.Itoa(i + 1)
		writeField(b, "Action "+n, clipCodePoints(st.action, s.cfg.MaxStepChars))
		if st.observation != "" {
			writeField(b, "Observation "+n, clipCodePoints(st.observation, s.cfg.MaxStepChars))
		}
	}
	for i := range head {
		write(i)
	}
	if tail > 0 {
		fmt.Fprintf(b, "\n[… %d steps left out …]", len(steps)-head-tail)
		for i := len(steps) - tail; i < len(steps); i++ {
			write(i)
		}
	}
}

// writeField writes "name: text" on a new line, or the text on the lines
// after "name:" when it spans several.
func writeField(b *strings.Builder, name, text string) {
	b.WriteString("\n")
	b.WriteString(name)
	if strings.Contains(text, "\n") {
		b.WriteString(":\n")
	} else {
		b.WriteString(": ")
	}
	b.WriteString(text)
}

// verdict names an outcome.
func outcomeVerdict(outcome float64) string {
	switch {
	case outcome >= 1:
		return "solved"
	case outcome > 0:
		return "partly solved"
	}
	return "failed"
}
