package contextmgr_test

import (
	"context"
	"slices"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

func TestLossMaskUnclosed(t *testing.T) {
	header, eos := []int{900, 901, 10}, 999
	for _, c := range []struct {
		name     string
		tokens   []int
		unclosed bool
		want     []int
	}{
		{"closed by the policy", []int{900, 901, 10, 1, 2, 999, 10}, false, []int{0, 0, 0, 1, 1, 1, 0}},
		{"closed by the template", []int{900, 901, 10, 1, 2, 999, 10}, true, []int{0, 0, 0, 1, 1, 0, 0}},
		{"no eos", []int{900, 901, 10, 1, 2}, true, []int{0, 0, 0, 1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &contextmgr.ExtendedMessage{Author: contextmgr.AuthorLLM, Tokens: c.tokens, Unclosed: c.unclosed}
			got, err := m.LossMask(header, eos)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("mask = %v, want %v", got, c.want)
			}
		})
	}
}

// completionModel answers every request with its completion.
type completionModel struct{ out llm.Completion }

func (m completionModel) Chat(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
	return m.out, nil
}

// TestRepliesThePolicyDidNotClose checks how a reply that does not end on
// the end-of-turn token (cut at the length limit, or ended on another stop
// token) becomes part of a Linear sample: every sampled id of its text is
// trained on with its log-prob, a final stop token the text does not hold
// is dropped, the <|im_end|> the template appends is in the sample (later
// prompts render it) but carries no loss, and the sample's tokens are the
// tokenised rendering of the next prompt (what the policy sees next). A
// reply closed by the policy keeps its end-of-turn token trained with the
// sampled log-prob.
func TestRepliesThePolicyDidNotClose(t *testing.T) {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eos, _ := tok.EOSID()
	eot, _ := tok.TokenID(tokenizer.EndOfText)
	text := "look"
	ids := tok.Encode(text)
	lps := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = -float64(i+1) / 10
		}
		return out
	}
	for _, c := range []struct {
		name    string
		content string
		ids     []int
		finish  string
		trained []int // the ids with loss mask 1, in order
	}{
		{"cut at the length limit", text, ids, "length", ids},
		{"closed with <|im_end|>", text, append(slices.Clone(ids), eos), "stop", append(slices.Clone(ids), eos)},
		{"stopped on <|endoftext|>", text, append(slices.Clone(ids), eot), "stop", ids},
		{"empty, stopped on <|endoftext|>", "", []int{eot}, "stop", nil},
		{"empty, closed with <|im_end|>", "", []int{eos}, "stop", []int{eos}},
		{"cut, no ids reported", text, nil, "length", ids},
	} {
		for _, tpl := range []struct {
			name string
			tpl  tokenizer.ChatTemplate
		}{{"qwen2.5", tokenizer.Qwen25ChatML()}, {"qwen3", tokenizer.Qwen3ChatML()}} {
			t.Run(c.name+"/"+tpl.name, func(t *testing.T) {
				cm, err := contextmgr.NewLinear(contextmgr.Config{Tokenizer: tok, Template: tpl.tpl})
				if err != nil {
					t.Fatal(err)
				}
				if err := cm.Init([]agentevolver.Message{system("You are an agent."), user("Go.")}); err != nil {
					t.Fatal(err)
				}
				out := llm.Completion{
					Message:      agentevolver.Message{Role: agentevolver.RoleAssistant, Content: c.content},
					TokenIDs:     c.ids,
					FinishReason: c.finish,
				}
				if c.ids != nil {
					out.LogProbs = lps(len(c.ids))
				}
				turn(t, cm, completionModel{out}, "nothing")
				next, err := cm.Prompt()
				if err != nil {
					t.Fatal(err)
				}
				if got := next[2].Content; got != c.content && c.ids != nil {
					t.Errorf("later prompts show the reply as %q, want %q", got, c.content)
				}
				h := cm.History()
				if want := c.ids == nil || c.ids[len(c.ids)-1] != eos; h[2].Unclosed != want {
					t.Errorf("Unclosed = %v, want %v", h[2].Unclosed, want)
				}
				samples, err := cm.Samples(agentevolver.Trajectory{TaskID: "t"})
				if err != nil {
					t.Fatal(err)
				}
				s := samples[0]
				var trained []int
				var trainedLP []float64
				for i, id := range s.ResponseIDs {
					if s.ResponseLossMask[i] == 1 {
						trained = append(trained, id)
						if s.ResponseLogProbs != nil {
							trainedLP = append(trainedLP, s.ResponseLogProbs[i])
						}
					}
				}
				if !slices.Equal(trained, c.trained) {
					t.Errorf("trained on %v, want %v", trained, c.trained)
				}
				if want := lps(len(c.trained)); c.ids != nil && !slices.Equal(trainedLP, want) {
					t.Errorf("trained log-probs %v, want the sampled %v", trainedLP, want)
				}
				// The turn ends with the template's <|im_end|>\n either way.
				if got := h[2].Tokens[len(h[2].Tokens)-2:]; !slices.Equal(got, []int{eos, '\n'}) {
					t.Errorf("turn ends with %v", got)
				}
				if tpl.name == "qwen2.5" && c.ids != nil {
					// What the policy is shown next is what the sample holds
					// (the sampled ids spell the reply here).
					rendered, _ := tpl.tpl.Apply(next[:3], tokenizer.TemplateOptions{})
					want := tok.Encode(rendered)
					if got := allTokens(h[:3]); !slices.Equal(got, want) {
						t.Errorf("sample tokens\n%v\ndiffer from the next prompt\n%v", got, want)
					}
				}
			})
		}
	}
}

// TestNoThinkReplyHoldingThinkEnd checks a Qwen3 reply with thinking
// disabled that holds "</think>": the template renders it with its own
// think block instead of the generation prompt's empty one, yet the turn is
// the generation prompt followed by the sampled ids.
func TestNoThinkReplyHoldingThinkEnd(t *testing.T) {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eos, _ := tok.EOSID()
	cm, err := contextmgr.NewLinear(contextmgr.Config{Tokenizer: tok, Template: tokenizer.Qwen3ChatML(),
		TemplateOptions: tokenizer.TemplateOptions{DisableThinking: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{user("Go.")}); err != nil {
		t.Fatal(err)
	}
	reply := "a</think>b"
	sampled := tok.Encode(reply)
	turn(t, cm, completionModel{llm.Completion{
		Message:  agentevolver.Message{Role: agentevolver.RoleAssistant, Content: reply},
		TokenIDs: sampled, FinishReason: "length",
	}}, "nothing")
	h := cm.History()
	want := tok.Encode("<|im_start|>assistant\n<think>\n\n</think>\n\n")
	header := len(want)
	want = append(append(want, sampled...), eos, '\n')
	if !slices.Equal(h[1].Tokens, want) {
		got, _ := tok.Decode(h[1].Tokens)
		t.Fatalf("turn tokens %q, want the generation prompt and the sampled ids", got)
	}
	samples, err := cm.Samples(agentevolver.Trajectory{TaskID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	mask := samples[0].ResponseLossMask[:len(want)]
	for i, m := range mask {
		if w := i >= header && i < header+len(sampled); (m == 1) != w {
			t.Fatalf("loss mask %v: only the %d sampled ids after the %d-token header train", mask, len(sampled), header)
		}
	}
}

// TestReplayKeepsSampledIDs checks that a per-turn strategy replaying an
// earlier policy turn unchanged keeps the ids that were sampled (which
// model.Policy splices back into its prompt) rather than re-tokenising
// the text, while a changed replay (think block stripped) is re-rendered.
func TestReplayKeepsSampledIDs(t *testing.T) {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eos, _ := tok.EOSID()
	// "<tool_call>" spelled byte by byte: not the canonical encoding (one
	// added token) of its text.
	var bytes []int
	for _, b := range []byte("<tool_call>x") {
		bytes = append(bytes, int(b))
	}
	for _, c := range []struct {
		name, reply string
		ids         []int
		kept        bool
	}{
		{"unchanged", "<tool_call>x", bytes, true},
		{"think stripped", "<think>t</think>y", tok.Encode("<think>t</think>y"), false},
	} {
		for _, strategy := range []string{contextmgr.StrategyLinearThink, contextmgr.StrategyMemory} {
			t.Run(c.name+"/"+strategy, func(t *testing.T) {
				cm, err := contextmgr.New(strategy, contextmgr.Config{Tokenizer: tok, Template: tokenizer.Qwen25ChatML()})
				if err != nil {
					t.Fatal(err)
				}
				if err := cm.Init([]agentevolver.Message{system("You are an agent."), user("Go.")}); err != nil {
					t.Fatal(err)
				}
				out := llm.Completion{
					Message:  agentevolver.Message{Role: agentevolver.RoleAssistant, Content: c.reply},
					TokenIDs: append(slices.Clone(c.ids), eos), FinishReason: "stop",
				}
				turn(t, cm, completionModel{out}, "nothing")
				turn(t, cm, completionModel{out}, "nothing")
				samples, err := cm.Samples(agentevolver.Trajectory{TaskID: "t"})
				if err != nil {
					t.Fatal(err)
				}
				// Memory replays the whole turn (it has no next-step code
				// section), think block included.
				want := c.kept || strategy == contextmgr.StrategyMemory
				if got := contains(samples[1].PromptIDs, c.ids); got != want {
					t.Errorf("second prompt holds the sampled ids: %v, want %v", got, want)
				}
			})
		}
	}
}

func contains(s, sub []int) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
