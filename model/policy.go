package model

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// PolicyOptions configure a Policy. The zero value is useful.
type PolicyOptions struct {
	// Temperature is used when a request leaves ChatOptions.Temperature
	// nil; 0 means 1. (A request asks for greedy decoding with an explicit
	// temperature of 0.)
	Temperature float64
	// MaxTokens is used when a request leaves ChatOptions.MaxTokens 0; 0
	// means DefaultMaxTokens.
	MaxTokens int
	// StopTokens end a completion; nil means the tokenizer's end-of-turn
	// tokens: its SpecialTokens EOS id, "<|im_end|>" and "<|endoftext|>"
	// where they exist.
	StopTokens []int
	// DisableThinking renders prompts as Qwen3 does with
	// enable_thinking=false.
	DisableThinking bool
	// MaxBatch bounds how many concurrent requests run as one batch; 0
	// means 64.
	MaxBatch int
	// PrefixCacheBytes bounds the host memory of the prefix cache, which
	// keeps the keys and values of recent prompts and answers so that an
	// episode's next turn, and a sibling rollout's identical first prompt,
	// prefill only the tokens not seen before. Least recently used entries
	// are evicted first; the cache is dropped whenever the model's weights
	// change. 0 means DefaultPrefixCacheBytes; negative disables prefix
	// reuse.
	PrefixCacheBytes int
	// NoContinuousBatching makes requests wait until the running batch has
	// finished, as one batch of every request waiting then. By default a
	// request joins the running batch at its next decode step and leaves it
	// as soon as it is done. With prefix reuse disabled too, generation
	// takes the plain batched path of Model.Generate (a baseline for
	// benchmarks).
	NoContinuousBatching bool
}

// Policy is the in-process policy as an llm.ChatModel: it renders messages
// with a chat template (plus the generation prompt), tokenises them,
// samples from a Model and decodes the answer. Completions carry the exact
// sampled token ids and their log-probs, so a trainer can use them without
// re-tokenising; and when a later prompt holds one of the policy's own
// earlier answers (the next turn of an episode), that answer is encoded
// with the ids that were sampled, not re-tokenised from its text, and as
// it was generated: with the generation prompt's tail (Qwen3's empty think
// block when thinking is disabled) and its reasoning, which the Qwen3
// template drops from earlier turns. Later turns are thus conditioned on
// exactly what a training sample of the episode holds (contextmgr's Linear
// strategy keeps every turn as sampled).
//
// Concurrent requests are batched continuously: a request joins the
// running batch at the next decode step and leaves it when it is done, and
// only the part of its prompt that is not in the prefix cache (an
// episode's earlier turns, a group's shared first prompt) is prefilled
// (see PolicyOptions.PrefixCacheBytes and NoContinuousBatching). Neither
// changes what is sampled: each request draws from its own random stream,
// and a request's logits are bitwise the same whatever runs beside it and
// whether its prefix was cached, so seeded sampling is reproducible however
// concurrent requests interleave. (Model.Generate lays out its batch
// differently; its log-probs agree with the Policy's to float32 rounding.)
type Policy struct {
	model    *Model
	tok      tokenizer.Tokenizer
	template tokenizer.ChatTemplate
	opts     PolicyOptions

	mu       sync.Mutex
	pending  []*chatRequest
	runToken chan struct{} // holding it means running a batch
	requests atomic.Uint64
	own      ownTokens // exact ids of this policy's answers, for later turns

	engine  *engine     // continuous batching with prefix reuse; nil: plain batches
	looping bool        // a goroutine runs the engine's loop; guarded by mu
	plain   PolicyStats // the plain path's counters; guarded by model.mu
}

var _ llm.ChatModel = (*Policy)(nil)

// assistantHeader opens an assistant turn in ChatML renderings.
const assistantHeader = tokenizer.IMStart + "assistant\n"

// ErrNoTemplate reports a Policy built without a chat template for a
// tokenizer that has none.
var ErrNoTemplate = errors.New("model: no chat template")

// NewPolicy returns a Policy sampling from m. template may be nil when tok
// implements tokenizer.TemplateProvider.
func NewPolicy(m *Model, tok tokenizer.Tokenizer, template tokenizer.ChatTemplate, opts PolicyOptions) (*Policy, error) {
	if m == nil || tok == nil {
		return nil, fmt.Errorf("%w: NewPolicy needs a model and a tokenizer", ErrBadInput)
	}
	if template == nil {
		provider, ok := tok.(tokenizer.TemplateProvider)
		if !ok {
			return nil, ErrNoTemplate
		}
		var err error
		if template, err = provider.ChatTemplate(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoTemplate, err)
		}
	}
	if tok.VocabSize() > m.cfg.VocabSize {
		return nil, fmt.Errorf("%w: tokenizer has %d ids, model only %d", ErrBadConfig, tok.VocabSize(), m.cfg.VocabSize)
	}
	if opts.Temperature == 0 {
		opts.Temperature = 1
	}
	if opts.MaxTokens == 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 64
	}
	if opts.StopTokens == nil {
		opts.StopTokens = defaultStopTokens(tok)
	}
	if opts.PrefixCacheBytes == 0 {
		opts.PrefixCacheBytes = DefaultPrefixCacheBytes
	}
	p := &Policy{model: m, tok: tok, template: template, opts: opts, runToken: make(chan struct{}, 1)}
	if opts.PrefixCacheBytes > 0 || !opts.NoContinuousBatching {
		p.engine = newEngine(m, opts.PrefixCacheBytes, !opts.NoContinuousBatching)
	}
	return p, nil
}

// Stats returns the policy's generation counters so far.
func (p *Policy) Stats() PolicyStats {
	p.model.mu.Lock()
	defer p.model.mu.Unlock()
	if p.engine == nil {
		return p.plain
	}
	s := p.engine.stats
	s.PrefixCacheEntries, s.PrefixCacheBytes = len(p.engine.prefix.entries), p.engine.prefix.bytes
	return s
}

// DropPrefixCache empties the policy's prefix cache, as new weights do
// after a training step, and frees its memory; compiled graphs stay. A
// benchmark uses it to measure later steps' rollouts, which start with
// every shape compiled and nothing cached.
func (p *Policy) DropPrefixCache() {
	p.model.mu.Lock()
	defer p.model.mu.Unlock()
	if p.engine != nil {
		p.engine.prefix.entries, p.engine.prefix.bytes = nil, 0
	}
}

// defaultStopTokens returns the end-of-turn ids tok knows.
func defaultStopTokens(tok tokenizer.Tokenizer) []int {
	var ids []int
	if id, ok := tokenizer.EOSID(tok); ok {
		ids = append(ids, id)
	}
	for _, text := range []string{tokenizer.IMEnd, tokenizer.EndOfText} {
		if id, ok := tok.TokenID(text); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Model returns the model the policy samples from.
func (p *Policy) Model() *Model { return p.model }

// Chat renders messages with the generation prompt and samples the
// assistant's answer from the ids the tokenizer knows (a model's padded
// vocabulary may be larger). Message.Content is the decoded text without a final
// stop token and cut before the first stop string; TokenIDs and LogProbs
// are every sampled token, a final stop token included. Without a seed
// the request draws a random one.
func (p *Policy) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	req, err := p.newRequest(ctx, messages, opts)
	if err != nil {
		return llm.Completion{}, err
	}
	if err := p.submit(ctx, req); err != nil {
		return llm.Completion{}, err
	}
	return p.completion(req)
}

// chatRequest is one Chat call waiting for or holding its result.
type chatRequest struct {
	row         rowRequest
	stopStrings []string
	genTail     []int         // the generation prompt's ids after the assistant header
	done        chan struct{} // closed when gen and err are set
	gen         Generation
	err         error
}

func (p *Policy) newRequest(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (*chatRequest, error) {
	text, err := p.template.Apply(messages, tokenizer.TemplateOptions{AddGenerationPrompt: true, DisableThinking: p.opts.DisableThinking})
	if err != nil {
		return nil, fmt.Errorf("model: rendering the chat template: %w", err)
	}
	sample := SampleOptions{
		MaxTokens:   cmp.Or(opts.MaxTokens, p.opts.MaxTokens),
		Temperature: p.opts.Temperature,
		TopK:        opts.TopK,
		TopP:        opts.TopP,
		StopTokens:  p.opts.StopTokens,
		VocabLimit:  p.tok.VocabSize(),
	}
	if opts.Temperature != nil {
		sample.Temperature = *opts.Temperature
	}
	if opts.Seed != nil {
		sample.Seed = uint64(*opts.Seed)
	} else {
		sample.Seed = rand.Uint64()
	}
	if err := checkSampleOptions(&sample); err != nil {
		return nil, err
	}
	prompt := p.own.encodePrompt(p.tok, p.template, text, messages)
	if err := p.model.checkPrompt(prompt, sample.MaxTokens); err != nil {
		return nil, err
	}
	req := &chatRequest{row: rowRequest{ctx: ctx, prompt: prompt, opts: sample}, done: make(chan struct{})}
	// What the generation prompt adds after the assistant header (Qwen3's
	// empty think block when thinking is disabled) belongs to the turn as
	// generated; later prompts show the answer with it.
	if i := strings.LastIndex(text, assistantHeader); i >= 0 {
		req.genTail = p.tok.Encode(text[i+len(assistantHeader):])
	}
	for _, s := range opts.Stop {
		if s != "" {
			req.stopStrings = append(req.stopStrings, s)
		}
	}
	if len(req.stopStrings) > 0 {
		req.row.stop = func(tokens []int) bool {
			text, err := p.tok.Decode(tokens)
			return err == nil && stopIndex(text, req.stopStrings) >= 0
		}
	}
	return req, nil
}

// submit queues req and waits for it: the engine's loop runs it, or (on
// the plain path) whoever finds the model free runs the batch of waiting
// requests.
func (p *Policy) submit(ctx context.Context, req *chatRequest) error {
	p.mu.Lock()
	p.pending = append(p.pending, req)
	if p.engine != nil && !p.looping {
		p.looping = true
		go p.loop()
	}
	p.mu.Unlock()
	if p.engine != nil {
		select {
		case <-req.done:
			return nil
		case <-ctx.Done():
			p.mu.Lock()
			i := slices.Index(p.pending, req)
			if i >= 0 {
				p.pending = slices.Delete(p.pending, i, i+1)
			}
			p.mu.Unlock()
			if i >= 0 {
				return ctx.Err()
			}
			<-req.done // running: it ends with ctx's error at the next step
			return nil
		}
	}
	for {
		select {
		case <-req.done:
			return nil
		case <-ctx.Done():
			p.mu.Lock()
			if i := slices.Index(p.pending, req); i >= 0 {
				p.pending = slices.Delete(p.pending, i, i+1)
			}
			p.mu.Unlock()
			return ctx.Err()
		case p.runToken <- struct{}{}:
			p.runBatch()
			<-p.runToken
		}
	}
}

// runBatch runs the requests waiting now (up to MaxBatch) as one batch.
func (p *Policy) runBatch() {
	p.mu.Lock()
	n := min(len(p.pending), p.opts.MaxBatch)
	batch := slices.Clone(p.pending[:n])
	p.pending = slices.Delete(p.pending, 0, n)
	p.mu.Unlock()
	if n == 0 {
		return
	}
	rows := make([]rowRequest, n)
	for i, req := range batch {
		rows[i] = req.row
	}
	gens, errs := p.model.generateRows(rows, &p.plain)
	for i, req := range batch {
		req.gen, req.err = gens[i], errs[i]
		close(req.done)
	}
}

// loop runs the engine while it has work: each tick admits the requests
// waiting (as many as MaxBatch leaves room for), samples a token for every
// row and takes one decode step. It ends when nothing is running or
// waiting.
func (p *Policy) loop() {
	held := 0 // ticks the waiting requests have been held back
	for {
		p.mu.Lock()
		room := p.engine.capacity(p.opts.MaxBatch)
		n := min(len(p.pending), room)
		if n > 0 && !admitNow(n, room, held, p.engine.active()) {
			n = 0
			held++
		} else if n > 0 {
			held = 0
		}
		reqs := slices.Clone(p.pending[:n])
		p.pending = slices.Delete(p.pending, 0, n)
		if len(reqs) == 0 && p.engine.active() == 0 {
			p.engine.idle() // under p.mu, so no new loop starts meanwhile
			p.looping = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		p.engine.tick(reqs)
	}
}

// Requests that arrive while the batch runs are admitted a few at a time:
// each admission is a prefill call, whose few hundred ops cost about as
// much as a decode step whatever its size, and bench rollout's episodes
// arrive one or two per step. Holding them until admitGroup wait (for at
// most admitMaxHold steps, and only while admitHoldRows rows keep the batch
// busy) took its prefill calls from about 550 to 340 and its wall time
// down 2-7%. A held request loses no work: its prefix stays cached, and
// its outputs do not depend on what it is batched with.
const (
	admitGroup    = 4
	admitMaxHold  = 8
	admitHoldRows = 8
)

// admitNow reports whether n waiting requests join the batch at this
// tick, given room for that many more, held back for held ticks so far,
// with running rows decoding.
func admitNow(n, room, held, running int) bool {
	return running < admitHoldRows || n >= min(admitGroup, room) || held >= admitMaxHold
}

// engineActive counts the engine's rows still generating (for tests).
func (p *Policy) engineActive() int {
	p.model.mu.Lock()
	defer p.model.mu.Unlock()
	return p.engine.active()
}

// completion turns a finished request into the llm answer.
func (p *Policy) completion(req *chatRequest) (llm.Completion, error) {
	if req.err != nil {
		return llm.Completion{}, req.err
	}
	g := req.gen
	content := g.TokenIDs
	if n := len(content); n > 0 && slices.Contains(req.row.opts.StopTokens, content[n-1]) && g.FinishReason == FinishStop {
		content = content[:n-1]
	}
	text, err := p.tok.Decode(content)
	if err != nil {
		return llm.Completion{}, fmt.Errorf("model: decoding the completion: %w", err)
	}
	if i := stopIndex(text, req.stopStrings); i >= 0 {
		text = text[:i] // the ids no longer spell the text: not remembered
	} else {
		// Later prompts show the answer closed by the template's
		// <|im_end|>, whatever ended it: a final stop token, which the text
		// does not hold, is not shown (contextmgr drops it from the
		// training sample too), and a reply cut at MaxTokens is closed by
		// an <|im_end|> it did not sample (no loss in the sample:
		// contextmgr's ExtendedMessage.Unclosed).
		p.own.remember(text, append(slices.Clone(req.genTail), content...))
	}
	return llm.Completion{
		Message:          agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text},
		TokenIDs:         g.TokenIDs,
		LogProbs:         g.LogProbs,
		FinishReason:     g.FinishReason,
		PromptTokens:     len(req.row.prompt),
		CompletionTokens: len(g.TokenIDs),
		RequestID:        "policy-" + strconv.FormatUint(p.requests.Add(1), 10),
	}, nil
}

// stopIndex returns where the first of stops occurs in text, or -1.
func stopIndex(text string, stops []string) int {
	first := -1
	for _, s := range stops {
		if i := strings.Index(text, s); i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}
