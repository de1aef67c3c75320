package model

import (
	"context"
	"slices"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// TestOwnTokensSpliced checks that a policy's earlier answer is encoded in
// a later prompt with the ids it sampled, even where they are not the
// tokenizer's canonical encoding of the answer's text, while the same text
// written by someone else is encoded canonically.
func TestOwnTokensSpliced(t *testing.T) {
	corpus := []string{
		"<|im_start|>user\nopen the door<|im_end|>\n",
		"<|im_start|>assistant\nthe door is open<|im_end|>\n",
	}
	tok, err := tokenizer.TrainBPE(corpus, tokenizer.TrainOptions{VocabSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	answer := "the door"
	canonical := tok.Encode(answer)
	// A non-canonical spelling of the same text: one id per byte.
	var sampled []int
	for _, b := range []byte(answer) {
		sampled = append(sampled, tok.Encode(string(b))...)
	}
	if slices.Equal(canonical, sampled) {
		t.Fatalf("the corpus did not merge %q: %v", answer, canonical)
	}
	tmpl := tokenizer.Qwen25ChatML()
	msgs := []agentevolver.Message{
		{Role: agentevolver.RoleUser, Content: "the door"}, // a quote: never replaced
		{Role: agentevolver.RoleAssistant, Content: answer},
		{Role: agentevolver.RoleUser, Content: "open"},
	}
	text, err := tmpl.Apply(msgs, tokenizer.TemplateOptions{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	var own ownTokens
	if got, want := own.encodePrompt(tok, tmpl, text, msgs), tok.Encode(text); !slices.Equal(got, want) {
		t.Fatalf("nothing remembered: %v, want the plain encoding %v", got, want)
	}
	own.remember(answer, sampled)
	got := own.encodePrompt(tok, tmpl, text, msgs)
	if n := count(got, sampled); n != 1 {
		t.Errorf("the sampled ids occur %d times in %v, want once", n, got)
	}
	if n := count(got, canonical); n != 1 {
		t.Errorf("the user's quote is not encoded canonically once: %v", got)
	}
	decoded, err := tok.Decode(got)
	if err != nil || decoded != text {
		t.Errorf("spliced prompt decodes to %q (%v), want %q", decoded, err, text)
	}
}

// count returns how many times sub occurs in s.
func count(s, sub []int) int {
	n := 0
	for i := 0; i+len(sub) <= len(s); i++ {
		if slices.Equal(s[i:i+len(sub)], sub) {
			n++
		}
	}
	return n
}

// TestPolicyRemembersItsAnswers checks the round trip through Chat: the
// second turn's prompt holds the first answer's sampled ids.
func TestPolicyRemembersItsAnswers(t *testing.T) {
	p := newTestPolicy(t, PolicyOptions{})
	first, err := p.Chat(context.Background(), hello, llm.ChatOptions{MaxTokens: 8, Seed: seed(3)})
	if err != nil {
		t.Fatal(err)
	}
	content := first.TokenIDs
	if first.FinishReason == FinishStop {
		content = content[:len(content)-1]
	}
	if ids, ok := p.own.lookup(first.Message.Content); first.Message.Content != "" && (!ok || !slices.Equal(ids, content)) {
		t.Fatalf("answer %q remembered as %v (%v), want %v", first.Message.Content, ids, ok, content)
	}
	for range ownTokensCapacity + 1 {
		p.own.remember(string(rune('a'+len(p.own.order)%26))+string(rune(len(p.own.order))), []int{1})
	}
	if len(p.own.ids) > ownTokensCapacity || len(p.own.order) > ownTokensCapacity {
		t.Errorf("memory holds %d answers, capacity %d", len(p.own.ids), ownTokensCapacity)
	}
}

// FuzzOwnTokens checks that splicing remembered answers never changes the
// prompt's text, whatever the messages hold.
func FuzzOwnTokens(f *testing.F) {
	f.Add("the door", "open the door")
	f.Add("<|im_end|>", "assistant\n")
	f.Add("", "x")
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		f.Fatal(err)
	}
	tmpl := tokenizer.Qwen25ChatML()
	f.Fuzz(func(t *testing.T, answer, user string) {
		msgs := []agentevolver.Message{
			{Role: agentevolver.RoleUser, Content: user},
			{Role: agentevolver.RoleAssistant, Content: answer},
			{Role: agentevolver.RoleUser, Content: answer + user},
		}
		text, err := tmpl.Apply(msgs, tokenizer.TemplateOptions{AddGenerationPrompt: true})
		if err != nil {
			t.Skip()
		}
		var own ownTokens
		own.remember(answer, tok.Encode(answer))
		got, err := tok.Decode(own.encodePrompt(tok, tmpl, text, msgs))
		if err != nil || got != text {
			t.Fatalf("spliced prompt decodes to %q (%v), want %q", got, err, text)
		}
	})
}

// TestOwnTurnsShownAsGenerated checks that the Qwen3 template's
// re-rendering of an earlier answer (reasoning dropped; with thinking
// disabled, no empty think block) does not hide the policy's own answer:
// the turn is encoded as it was generated.
func TestOwnTurnsShownAsGenerated(t *testing.T) {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := tokenizer.Qwen3ChatML()
	for _, c := range []struct {
		name, answer, genTail string
	}{
		{"reasoning", "<think>why</think>\n\ngo north", ""},
		{"reasoning, answer empty", "<think>why</think>", ""},
		{"thinking disabled", "go north", "<think>\n\n</think>\n\n"},
		{"thinking disabled, empty", "", "<think>\n\n</think>\n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msgs := []agentevolver.Message{
				{Role: agentevolver.RoleUser, Content: "where?"},
				{Role: agentevolver.RoleAssistant, Content: c.answer},
				{Role: agentevolver.RoleUser, Content: "and now?"},
			}
			opts := tokenizer.TemplateOptions{AddGenerationPrompt: true, DisableThinking: c.genTail != ""}
			text, err := tmpl.Apply(msgs, opts)
			if err != nil {
				t.Fatal(err)
			}
			var own ownTokens
			own.remember(c.answer, tok.Encode(c.genTail+c.answer))
			got, err := tok.Decode(own.encodePrompt(tok, tmpl, text, msgs))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := tmpl.Apply(msgs[:1], tokenizer.TemplateOptions{})
			want += "<|im_start|>assistant\n" + c.genTail + c.answer + "<|im_end|>\n"
			rest, _ := tmpl.Apply(msgs[2:], opts)
			if want += rest; got != want {
				t.Errorf("prompt\n%q\nwant\n%q", got, want)
			}
		})
	}
}
