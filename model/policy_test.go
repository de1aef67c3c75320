package model

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// newTestPolicy returns a policy over a tiny random model with the
// byte-level tokenizer (265 ids) and its Qwen3 ChatML template.
func newTestPolicy(t testing.TB, opts PolicyOptions) *Policy {
	t.Helper()
	cfg := tinyConfig()
	cfg.VocabSize = 272
	m := newTestModel(t, cfg, 31)
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicy(m, tok, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var hello = []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Hello!"}}

func seed(v int64) *int64 { return &v }

func TestPolicyChat(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{})
	c, err := p.Chat(context.Background(), hello, llm.ChatOptions{MaxTokens: 20, Seed: seed(1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.TokenIDs) == 0 || len(c.TokenIDs) != len(c.LogProbs) || c.CompletionTokens != len(c.TokenIDs) {
		t.Fatalf("completion %+v", c)
	}
	// The prompt is the template's rendering with the generation prompt.
	text, _ := p.template.Apply(hello, tokenizer.TemplateOptions{AddGenerationPrompt: true})
	prompt := p.tok.Encode(text)
	if c.PromptTokens != len(prompt) {
		t.Errorf("PromptTokens = %d, want %d", c.PromptTokens, len(prompt))
	}
	// The token ids are exactly what the model samples for that prompt.
	gens, err := p.Model().Generate(context.Background(), [][]int{prompt}, SampleOptions{MaxTokens: 20, Temperature: 1, Seed: 1, StopTokens: p.opts.StopTokens, VocabLimit: 265})
	if err != nil {
		t.Fatal(err)
	}
	// The log-probs agree to float32 rounding: the running batch lays the
	// cache out differently from Generate's.
	if !slices.Equal(c.TokenIDs, gens[0].TokenIDs) || !logProbsClose(c.LogProbs, gens[0].LogProbs, 1e-5) {
		t.Errorf("Chat tokens %v, Generate %v", c.TokenIDs, gens[0].TokenIDs)
	}
	content := c.TokenIDs
	if c.FinishReason == FinishStop {
		content = content[:len(content)-1]
	}
	want, _ := p.tok.Decode(content)
	if c.Message.Content != want || c.Message.Role != agentevolver.RoleAssistant {
		t.Errorf("message %+v, want content %q", c.Message, want)
	}
	again, err := p.Chat(context.Background(), hello, llm.ChatOptions{MaxTokens: 20, Seed: seed(1)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.TokenIDs, c.TokenIDs) {
		t.Errorf("same seed gave %v then %v", c.TokenIDs, again.TokenIDs)
	}
}

func TestPolicyStops(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{})
	greedy, err := p.Chat(context.Background(), hello, llm.ChatOptions{Temperature: llm.Float(0), MaxTokens: 30})
	if err != nil {
		t.Fatal(err)
	}
	// Make the greedy path's third token the stop token.
	third := greedy.TokenIDs[2]
	q, err := NewPolicy(p.Model(), p.tok, nil, PolicyOptions{StopTokens: []int{third}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := q.Chat(context.Background(), hello, llm.ChatOptions{Temperature: llm.Float(0), MaxTokens: 30})
	if err != nil {
		t.Fatal(err)
	}
	k := slices.Index(greedy.TokenIDs, third)
	if c.FinishReason != FinishStop || !slices.Equal(c.TokenIDs, greedy.TokenIDs[:k+1]) {
		t.Fatalf("with stop token: %+v, greedy %v", c, greedy.TokenIDs)
	}
	if want, _ := p.tok.Decode(greedy.TokenIDs[:k]); c.Message.Content != want {
		t.Errorf("content %q, want %q (without the stop token)", c.Message.Content, want)
	}

	// A stop string cuts the text before it and ends the completion.
	text := greedy.Message.Content
	if len(text) < 4 {
		t.Skipf("greedy text %q too short for a stop string", text)
	}
	stop := text[2:4]
	c, err = p.Chat(context.Background(), hello, llm.ChatOptions{Temperature: llm.Float(0), MaxTokens: 30, Stop: []string{stop}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Message.Content != text[:strings.Index(text, stop)] || c.FinishReason != FinishStop {
		t.Errorf("stop %q: content %q (%s), greedy %q", stop, c.Message.Content, c.FinishReason, text)
	}
}

// TestPolicyConcurrentBatches runs concurrent requests (batched together)
// and requires each to equal the same request run alone.
func TestPolicyConcurrentBatches(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{MaxBatch: 3})
	conversations := make([][]agentevolver.Message, 7)
	for i := range conversations {
		conversations[i] = []agentevolver.Message{{Role: agentevolver.RoleUser, Content: strings.Repeat("ab", i+1)}}
	}
	alone := make([]llm.Completion, len(conversations))
	for i, msgs := range conversations {
		c, err := p.Chat(context.Background(), msgs, llm.ChatOptions{MaxTokens: 8, Seed: seed(int64(i))})
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = c
	}
	together := make([]llm.Completion, len(conversations))
	var wg sync.WaitGroup
	for i, msgs := range conversations {
		wg.Go(func() {
			c, err := p.Chat(context.Background(), msgs, llm.ChatOptions{MaxTokens: 8, Seed: seed(int64(i))})
			if err != nil {
				t.Error(err)
			}
			together[i] = c
		})
	}
	wg.Wait()
	for i := range alone {
		if !slices.Equal(alone[i].TokenIDs, together[i].TokenIDs) {
			t.Errorf("request %d: alone %v, batched %v", i, alone[i].TokenIDs, together[i].TokenIDs)
		}
	}
}

func TestPolicyErrors(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Chat(ctx, hello, llm.ChatOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if _, err := p.Chat(context.Background(), hello, llm.ChatOptions{TopP: 2}); !errors.Is(err, ErrBadInput) {
		t.Errorf("TopP 2: err = %v", err)
	}
	small := newTestModel(t, tinyConfig(), 1) // 37 ids, fewer than the tokenizer's
	tok, _ := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if _, err := NewPolicy(small, tok, nil, PolicyOptions{}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("vocabulary mismatch: err = %v", err)
	}
}
