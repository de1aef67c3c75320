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

// byteLevelModel replies with fixed texts, reporting their byte-level ids.
type byteLevelModel struct {
	tok     *tokenizer.ByteLevel
	replies []string
}

func (m *byteLevelModel) Chat(_ context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	text := m.replies[0]
	m.replies = m.replies[1:]
	eos, _ := m.tok.EOSID()
	return llm.Completion{
		Message:  agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text},
		TokenIDs: append(m.tok.Encode(text), eos),
	}, nil
}

// TestByteLevelTokenizer checks every strategy with the real byte-level
// tokenizer and both Qwen templates: the EOS comes from the tokenizer, the
// policy's ids are kept, and each sample trains on exactly the policy's
// replies.
func TestByteLevelTokenizer(t *testing.T) {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eos, _ := tok.EOSID()
	replies := []string{"<think>look</think>\n\ncalendar.list day=Tue", "contacts.find name=Sam"}
	for _, tpl := range []struct {
		name string
		tpl  tokenizer.ChatTemplate
	}{{"qwen2.5", tokenizer.Qwen25ChatML()}, {"qwen3", tokenizer.Qwen3ChatML()}} {
		for _, strategy := range []string{contextmgr.StrategyLinear, contextmgr.StrategyLinearThink, contextmgr.StrategyMemory} {
			t.Run(tpl.name+"/"+strategy, func(t *testing.T) {
				cm, err := contextmgr.New(strategy, contextmgr.Config{Tokenizer: tok, Template: tpl.tpl})
				if err != nil {
					t.Fatal(err)
				}
				if err := cm.Init([]agentevolver.Message{system("You are an agent."), user("Call Sam.")}); err != nil {
					t.Fatal(err)
				}
				model := &byteLevelModel{tok: tok, replies: slices.Clone(replies)}
				turn(t, cm, model, "3: coffee with Sam")
				turn(t, cm, model, "Sam 555-1457")
				cm.Finish()
				samples, err := cm.Samples(agentevolver.Trajectory{TaskID: "t"})
				if err != nil {
					t.Fatal(err)
				}
				var trained []int
				for _, s := range samples {
					for i, id := range s.ResponseIDs {
						if s.ResponseLossMask[i] == 1 {
							trained = append(trained, id)
						}
					}
				}
				if lin, ok := cm.(*contextmgr.Linear); ok && tpl.name == "qwen2.5" {
					// Message tokens concatenate to the tokenised rendering.
					h := lin.History()
					var msgs []agentevolver.Message
					for _, m := range h {
						msgs = append(msgs, m.Message())
					}
					text, _ := tpl.tpl.Apply(msgs, tokenizer.TemplateOptions{})
					if !slices.Equal(allTokens(h), tok.Encode(text)) {
						t.Error("history tokens differ from the tokenised rendering")
					}
				}
				var want []int
				for _, r := range replies {
					want = append(append(want, tok.Encode(r)...), eos)
				}
				if !slices.Equal(trained, want) {
					got, _ := tok.Decode(trained)
					t.Errorf("trained on %q", got)
				}
			})
		}
	}
}
