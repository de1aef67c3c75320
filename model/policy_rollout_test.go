package model

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// rolloutCase is one chat-template setting shared by the policy and the
// context manager.
type rolloutCase struct {
	name    string
	tpl     tokenizer.ChatTemplate
	noThink bool // Qwen3 with enable_thinking=false
}

func rolloutCases() []rolloutCase {
	return []rolloutCase{
		{"qwen2.5", tokenizer.Qwen25ChatML(), false},
		{"qwen3", tokenizer.Qwen3ChatML(), false},
		{"qwen3-nothink", tokenizer.Qwen3ChatML(), true},
	}
}

// rolloutSamples runs one episode the way agentflow's loop does (Prompt,
// Chat with LogProbs, RecordLLM, Action, RecordEnv, then Finish and
// Samples) with the context strategy, and returns its samples and the
// policy's completions.
func rolloutSamples(t *testing.T, p *Policy, c rolloutCase, strategy string, turns, maxTokens int, seed int64) ([]agentevolver.Sample, []llm.Completion) {
	t.Helper()
	ctx := context.Background()
	cm, err := contextmgr.New(strategy, contextmgr.Config{
		Tokenizer:       p.tok,
		Template:        c.tpl,
		TemplateOptions: tokenizer.TemplateOptions{DisableThinking: c.noThink},
		MaxModelLen:     4096,
		ResponseLength:  maxTokens,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You are an agent."},
		{Role: agentevolver.RoleUser, Content: "Find the key."},
	}); err != nil {
		t.Fatal(err)
	}
	var outs []llm.Completion
	for step := range turns {
		prompt, err := cm.Prompt()
		if err != nil {
			t.Fatal(err)
		}
		s := seed*1000 + int64(step)
		out, err := p.Chat(ctx, prompt, llm.ChatOptions{MaxTokens: maxTokens, LogProbs: true, Seed: &s})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
		if err := cm.RecordLLM(ctx, prompt, out); err != nil {
			t.Fatal(err)
		}
		if _, err := cm.Action(); err != nil {
			t.Fatal(err)
		}
		if err := cm.RecordEnv(agentevolver.Message{Role: agentevolver.RoleUser, Content: fmt.Sprintf("step %d: nothing here", step)}); err != nil {
			t.Fatal(err)
		}
	}
	cm.Finish()
	samples, err := cm.Samples(agentevolver.Trajectory{TaskID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return samples, outs
}

// rolloutLogProbDiff recomputes the log-probs of a sample's response
// tokens with the policy's model, as the trainer does for
// rollout/logprob_diff_max, and returns the largest absolute difference to
// the sample's ResponseLogProbs over loss-masked positions, and where.
func rolloutLogProbDiff(t *testing.T, m *Model, s agentevolver.Sample) (maxDiff float64, at int) {
	t.Helper()
	if len(s.ResponseLogProbs) != len(s.ResponseIDs) {
		t.Fatalf("%d response log-probs for %d response ids", len(s.ResponseLogProbs), len(s.ResponseIDs))
	}
	res, err := m.LogProbs(context.Background(), Batch{Tokens: Tokens{InputIDs: [][]int{s.InputIDs}, PromptLen: len(s.PromptIDs)}})
	if err != nil {
		t.Fatal(err)
	}
	at = -1
	for j, lp := range s.ResponseLogProbs {
		if s.ResponseLossMask[j] == 0 {
			continue
		}
		if d := math.Abs(lp - float64(res.LogProbs[0][j])); d > maxDiff || at < 0 {
			maxDiff, at = d, j
		}
	}
	return maxDiff, at
}

// replyKinds classifies a policy turn for coverage: how it ended and
// whether it holds reasoning the Qwen3 template drops from later prompts.
func replyKinds(p *Policy, out llm.Completion) []string {
	var kinds []string
	switch ids := out.TokenIDs; {
	case out.FinishReason == FinishLength:
		kinds = append(kinds, "cut")
	case ids[len(ids)-1] == p.opts.StopTokens[0]: // the tokenizer's EOS, <|im_end|>
		kinds = append(kinds, "<|im_end|>")
	default:
		kinds = append(kinds, "other stop token")
	}
	if out.Message.Content == "" {
		kinds = append(kinds, "empty")
	}
	if strings.Contains(out.Message.Content, tokenizer.ThinkEnd) {
		kinds = append(kinds, "</think>")
	}
	return kinds
}

// TestRolloutLogProbsMatchTrainer is the trainer's rollout/logprob_diff_max
// check on multi-turn episodes of a real Policy through the context
// managers, built as agentflow builds them: every loss-masked response
// token must carry the log-prob the model gives it in the sample's
// context. The episodes cover replies cut at the length limit (the
// template's <|im_end|> after them is not the policy's token), replies
// closed with <|im_end|> or stopped on <|endoftext|>, empty replies, and
// replies holding "</think>" (which the Qwen3 template drops from later
// prompts), for the Qwen2.5 and Qwen3 templates, thinking on and off.
//
// Before the fix the largest difference was 5.8-9.7 nats, on the
// <|im_end|> after a cut reply (trained with log-prob 0), with later turns
// off by up to 5 nats where the policy's next prompt differed from the
// sample.
//
// The model's vocabulary is the tokenizer's: with a padded vocabulary the
// sampler renormalises over the tokenizer's ids (VocabLimit) while the
// trainer's log-probs do not, a difference of log(mass of the real ids).
func TestRolloutLogProbsMatchTrainer(t *testing.T) {
	const tol = 1e-4
	runs := []struct {
		strategy  string
		maxTokens int
		seeds     int64
		manyStops bool // bytes 0-99 stop a reply too: often empty, rarely closed with <|im_end|>
	}{
		{contextmgr.StrategyLinear, 6, 8, false}, // response_length 6: nearly every reply is cut
		{contextmgr.StrategyLinear, 40, 8, false},
		{contextmgr.StrategyLinear, 40, 4, true},
		// Per-turn samples: a response is header + reply and at most
		// ResponseLength tokens, so they need longer replies to train.
		{contextmgr.StrategyLinearThink, 40, 3, false},
		{contextmgr.StrategyMemory, 40, 3, true},
	}
	seen := map[string]int{} // reply kinds, over every template
	for _, c := range rolloutCases() {
		t.Run(c.name, func(t *testing.T) {
			p := newRolloutPolicy(t, c)
			stops := slices.Clone(p.opts.StopTokens)
			for b := range 100 {
				stops = append(stops, b)
			}
			q, err := NewPolicy(p.Model(), p.tok, c.tpl, PolicyOptions{DisableThinking: c.noThink, StopTokens: stops})
			if err != nil {
				t.Fatal(err)
			}
			thinkEnds := seen["</think>"]
			for _, r := range runs {
				p := p
				if r.manyStops {
					p = q
				}
				worst := 0.0
				for seed := range r.seeds {
					samples, outs := rolloutSamples(t, p, c, r.strategy, 3, r.maxTokens, seed)
					for _, out := range outs {
						for _, k := range replyKinds(p, out) {
							seen[k]++
						}
					}
					for k, s := range samples {
						d, at := rolloutLogProbDiff(t, p.Model(), s)
						worst = max(worst, d)
						if d > tol {
							t.Errorf("%s, %d tokens, seed %d, sample %d: max |logprob diff| %.3g at response token %d (id %d)",
								r.strategy, r.maxTokens, seed, k, d, at, s.ResponseIDs[at])
						}
					}
				}
				t.Logf("%s, replies of at most %d tokens, %d episodes, many stop tokens %v: max |logprob diff| %.2g", r.strategy, r.maxTokens, r.seeds, r.manyStops, worst)
			}
			if c.tpl.(tokenizer.ChatML).Reasoning && seen["</think>"] == thinkEnds {
				t.Errorf("no reply holding </think>: the episodes no longer cover it")
			}
		})
	}
	t.Logf("replies: %v", seen)
	for _, k := range []string{"cut", "<|im_end|>", "other stop token", "empty"} {
		if seen[k] == 0 {
			t.Errorf("no %s reply among %v: the episodes no longer cover it", k, seen)
		}
	}
}

func newRolloutPolicy(t *testing.T, c rolloutCase) *Policy {
	t.Helper()
	cfg := tinyConfig()
	cfg.VocabSize = 265
	m := newTestModel(t, cfg, 31)
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicy(m, tok, c.tpl, PolicyOptions{DisableThinking: c.noThink})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
