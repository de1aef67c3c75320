package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// SampleOptions tune Generate. The zero value decodes greedily up to
// DefaultMaxTokens tokens.
type SampleOptions struct {
	// MaxTokens bounds the number of generated tokens per row; 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// Temperature divides the logits; 0 means greedy decoding.
	Temperature float64
	// TopK keeps only the k most likely tokens; 0 disables it.
	TopK int
	// TopP keeps the smallest set of most likely tokens whose probability
	// reaches TopP; 0 and 1 disable it.
	TopP float64
	// StopTokens end a row when sampled (end-of-sequence tokens). The stop
	// token is part of the row's output.
	StopTokens []int
	// Stop, if set, is asked after every token whether row (an index into
	// the prompts) is done given its tokens so far; it implements stop
	// strings. It runs on the calling goroutine.
	Stop func(row int, tokens []int) bool
	// VocabLimit restricts sampling to ids below it (a tokenizer smaller
	// than the model's padded vocabulary); 0 means every id.
	VocabLimit int
	// Seed makes sampling reproducible: row i draws from its own stream
	// seeded by (Seed, i), whatever the batch it runs in.
	Seed uint64
}

// DefaultMaxTokens is the generation length when SampleOptions.MaxTokens is
// 0.
const DefaultMaxTokens = 256

// Finish reasons of a Generation, as in the OpenAI API.
const (
	FinishStop   = "stop"   // a stop token or the Stop function ended the row
	FinishLength = "length" // MaxTokens was reached
)

// Generation is one row's output of Generate.
type Generation struct {
	// TokenIDs are the sampled tokens, a final stop token included.
	TokenIDs []int
	// LogProbs are their log-probabilities under the distribution each was
	// sampled from (see SampleOptions); for greedy decoding, under the
	// model's unscaled distribution.
	LogProbs []float64
	// FinishReason is FinishStop or FinishLength.
	FinishReason string
}

// Generate continues every prompt (token ids) with sampled tokens, all
// rows in one batch with a KV cache: one prefill pass over the
// left-padded prompts, then one single-token decode pass per new token.
// Batch size, prompt length and cache length are padded to bucket sizes,
// so each bucket compiles once.
func (m *Model) Generate(ctx context.Context, prompts [][]int, opts SampleOptions) ([]Generation, error) {
	if len(prompts) == 0 {
		return nil, fmt.Errorf("%w: no prompts", ErrBadInput)
	}
	if err := checkSampleOptions(&opts); err != nil {
		return nil, err
	}
	rows := make([]rowRequest, len(prompts))
	for i, p := range prompts {
		if err := m.checkPrompt(p, opts.MaxTokens); err != nil {
			return nil, fmt.Errorf("prompt %d: %w", i, err)
		}
		rows[i] = rowRequest{ctx: ctx, prompt: p, opts: opts, stream: uint64(i)}
		if opts.Stop != nil {
			rows[i].stop = func(tokens []int) bool { return opts.Stop(i, tokens) }
		}
	}
	gens, errs := m.generateRows(rows, nil)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return gens, nil
}

// rowRequest is one row of a batched generation, with its own options
// (checked, defaults filled), random stream and cancellation.
type rowRequest struct {
	ctx    context.Context
	prompt []int
	opts   SampleOptions
	stream uint64                  // the row samples from the PCG stream (opts.Seed, stream)
	stop   func(tokens []int) bool // optional
}

// generateRows runs rows as one batch. A row whose context ends stops
// with that error; the other rows go on. stats, if not nil, is updated
// under m.mu.
func (m *Model) generateRows(rows []rowRequest, stats *PolicyStats) (gens []Generation, errs []error) {
	gens, errs = make([]Generation, len(rows)), make([]error, len(rows))
	var err error // a failure of the whole batch: every unfinished row gets it
	defer func() {
		for i := range errs {
			if err != nil && errs[i] == nil && gens[i].FinishReason == "" {
				errs[i] = err
			}
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	defer recoverGraphError(&err, "generate")

	prompts := make([][]int, len(rows))
	maxTokens := 0
	samplers := make([]sampler, len(rows))
	rngs := make([]*rand.Rand, len(rows))
	for i, r := range rows {
		prompts[i], maxTokens = r.prompt, max(maxTokens, r.opts.MaxTokens)
		samplers[i] = sampler{temperature: r.opts.Temperature, topK: r.opts.TopK, topP: r.opts.TopP}
		rngs[i] = rand.New(rand.NewPCG(r.opts.Seed, r.stream))
	}
	if stats == nil {
		stats = new(PolicyStats)
	}
	d := m.newDecoder(prompts, maxTokens)
	defer d.release()
	began := time.Now()
	stats.PrefillCalls++
	stats.PrefillPadded += d.rows * d.promptCols
	logits, err := d.prefill()
	stats.PrefillTime += time.Since(began)
	for _, p := range prompts {
		stats.PrefillTokens += len(p)
	}
	if err != nil {
		return gens, errs
	}
	began = time.Now()
	defer func() { stats.DecodeTime += time.Since(began) }()
	next := make([]int, d.rows) // finished and padding rows feed token 0
	for {
		active := 0
		for i, r := range rows {
			g := &gens[i]
			if g.FinishReason != "" || errs[i] != nil {
				continue
			}
			if errs[i] = r.ctx.Err(); errs[i] != nil {
				continue
			}
			row := logits[i*d.vocab : (i+1)*d.vocab]
			if limit := r.opts.VocabLimit; limit > 0 && limit < len(row) {
				row = row[:limit]
			}
			token, logp := samplers[i].sample(row, rngs[i])
			stats.GeneratedTokens++
			g.TokenIDs = append(g.TokenIDs, token)
			g.LogProbs = append(g.LogProbs, logp)
			next[i] = token
			switch {
			case slices.Contains(r.opts.StopTokens, token) || (r.stop != nil && r.stop(g.TokenIDs)):
				g.FinishReason = FinishStop
			case len(g.TokenIDs) == r.opts.MaxTokens:
				g.FinishReason = FinishLength
			default:
				active++
			}
			if g.FinishReason != "" {
				stats.Requests++
			}
		}
		if active == 0 {
			return gens, errs
		}
		if logits, err = d.step(next); err != nil {
			return gens, errs
		}
		stats.DecodeSteps++
		stats.DecodeRows += d.rows
		stats.DecodeColumns += d.rows * d.cols
	}
}

// checkSampleOptions validates opts and fills its defaults.
func checkSampleOptions(opts *SampleOptions) error {
	if opts.MaxTokens == 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.TopP == 0 {
		opts.TopP = 1
	}
	switch {
	case opts.MaxTokens < 0:
		return fmt.Errorf("%w: MaxTokens %d", ErrBadInput, opts.MaxTokens)
	case !(opts.Temperature >= 0):
		return fmt.Errorf("%w: temperature %g", ErrBadInput, opts.Temperature)
	case opts.TopK < 0:
		return fmt.Errorf("%w: TopK %d", ErrBadInput, opts.TopK)
	case !(opts.TopP > 0 && opts.TopP <= 1):
		return fmt.Errorf("%w: TopP %g outside (0, 1]", ErrBadInput, opts.TopP)
	case opts.VocabLimit < 0:
		return fmt.Errorf("%w: VocabLimit %d", ErrBadInput, opts.VocabLimit)
	}
	return nil
}

// checkPrompt validates one prompt for a generation of maxTokens tokens.
func (m *Model) checkPrompt(prompt []int, maxTokens int) error {
	if len(prompt) == 0 {
		return fmt.Errorf("%w: empty prompt", ErrBadInput)
	}
	if n := len(prompt) + maxTokens; n > m.cfg.MaxPositionEmbeddings {
		return fmt.Errorf("%w: %d prompt and %d new tokens exceed max_position_embeddings %d", ErrBadInput, len(prompt), maxTokens, m.cfg.MaxPositionEmbeddings)
	}
	for j, id := range prompt {
		if id < 0 || id >= m.cfg.VocabSize {
			return fmt.Errorf("%w: token %d is %d, outside [0, %d)", ErrBadInput, j, id, m.cfg.VocabSize)
		}
	}
	return nil
}
