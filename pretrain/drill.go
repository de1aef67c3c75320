package pretrain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
)

// Copy drills are short synthetic episodes that only copying from the
// prompt solves (CorpusConfig.DrillShare). A model from scratch learns to
// copy in context late, and toolworld episodes teach it slowly: a value
// copied from the instruction is a few tokens of a long episode, and most
// of what an episode asks can be recalled instead (run v1 in
// docs/pretraining.md copied no value after 2,000 steps). A drill asks for
// nothing else, in the tool-call form the policy writes:
//
//   - echo: "Repeat: Yusuf swim Tue." is answered with
//     task.finish answer="Yusuf swim Tue";
//   - call: "Pairs: day Tue, with Yusuf, title swim. Call planner.add with
//     title and with." is answered with planner.add title=swim with=Yusuf,
//     the skill a varied world asks for (an argument's value found by its
//     name, the call's name read off the prompt); a third of the values
//     are numbers (phone numbers and amounts, a token per digit).
//
// The words are the corpus's own (its instructions and calls), so drills
// copy the tokens that toolworld episodes copy.
type drillMaker struct {
	words []string
}

// drillTemplateText is what the tokenizer learns from for drills' fixed
// words.
const drillTemplateText = "Repeat: a b. Pairs: a b, c d. Call app.api with a and c."

// maxDrillWords bounds the words drills draw from.
const maxDrillWords = 4096

// newDrillMaker collects the distinct words (runs of letters, at least two)
// of the first corpus tasks' instructions and expert calls, in a fixed
// order.
func newDrillMaker(c *corpus) (*drillMaker, error) {
	seen := map[string]bool{}
	var words []string
	add := func(text string) {
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) >= 2 && len(words) < maxDrillWords && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	for _, id := range c.train[:min(len(c.train), 3000)] {
		info, err := c.env.Task(id)
		if err != nil {
			return nil, err
		}
		add(info.Instruction)
		actions, err := c.env.Solve(id)
		if err != nil {
			return nil, err
		}
		for _, a := range actions {
			add(callLine(a.Content))
		}
	}
	if len(words) < 8 {
		return nil, fmt.Errorf("%w: the corpus has %d distinct words, too few for drills", ErrConfig, len(words))
	}
	slices.Sort(words)
	return &drillMaker{words: words}, nil
}

// drill draws the instruction and answer of drill seed.
func (d *drillMaker) drill(seed uint64) (instruction, answer string) {
	r := rand.New(rand.NewPCG(seed, drillStream))
	pick := func(n int) []string {
		idx := r.Perm(len(d.words))[:n]
		out := make([]string, n)
		for i, j := range idx {
			out[i] = d.words[j]
		}
		return out
	}
	if r.IntN(3) == 0 {
		w := pick(1 + r.IntN(4))
		text := strings.Join(w, " ")
		if len(w) > 1 {
			text = `"` + text + `"`
		}
		return "Repeat: " + strings.Join(w, " ") + ".", toolBlock("task.finish answer=" + text)
	}
	n := 2 + r.IntN(4)
	w := pick(2*n + 2)
	keys, values := w[:n], w[n:2*n]
	for i := range values {
		// Toolworld's values include phone numbers and amounts, one token
		// per digit, so copying them is copying a sequence.
		switch r.IntN(6) {
		case 0:
			values[i] = fmt.Sprintf("555-%04d", r.IntN(10000))
		case 1:
			values[i] = fmt.Sprint(1 + r.IntN(500))
		}
	}
	app := w[2*n] + "." + w[2*n+1]
	pairs := make([]string, n)
	for i := range keys {
		pairs[i] = keys[i] + " " + values[i]
	}
	asked := r.Perm(n)[:1+r.IntN(min(n, 3))]
	names := make([]string, len(asked))
	args := make([]string, len(asked))
	for i, k := range asked {
		names[i] = keys[k]
		args[i] = keys[k] + "=" + values[k]
	}
	return fmt.Sprintf("Pairs: %s. Call %s with %s.", strings.Join(pairs, ", "), app, joinAnd(names)),
		toolBlock(app + " " + strings.Join(args, " "))
}

// drillStream separates drills' random streams from the corpus's.
const drillStream = 0x6472696c6c // "drill"

// toolBlock writes call in the tool block a policy turn holds; callLine
// reads it back.
func toolBlock(call string) string { return "```tool\n" + call + "\n```" }

func callLine(block string) string {
	return strings.TrimSuffix(strings.TrimPrefix(block, "```tool\n"), "\n```")
}

func joinAnd(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// sample renders drill seed as one training sample through the trainer's
// context manager (the same chat template and loss mask as an episode).
func (d *drillMaker) sample(ctx context.Context, cfg contextmgr.Config, systemPrompt string, seed uint64) (agentevolver.Sample, error) {
	instruction, answer := d.drill(seed)
	l, err := contextmgr.NewLinear(cfg)
	if err != nil {
		return agentevolver.Sample{}, err
	}
	if err := l.Init([]agentevolver.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: instruction}}); err != nil {
		return agentevolver.Sample{}, fmt.Errorf("pretrain: drill: %w", err)
	}
	prompt, err := l.Prompt()
	if err != nil {
		return agentevolver.Sample{}, fmt.Errorf("pretrain: drill: %w", err)
	}
	if err := l.RecordLLM(ctx, prompt, llm.Completion{Message: agentevolver.Message{Role: "assistant", Content: answer}}); err != nil {
		return agentevolver.Sample{}, fmt.Errorf("pretrain: drill: %w", err)
	}
	l.Finish()
	id := fmt.Sprintf("drill-%016x", seed)
	s, err := l.Samples(agentevolver.Trajectory{TaskID: id, Reward: agentevolver.Reward{Outcome: 1}})
	if err != nil {
		return agentevolver.Sample{}, fmt.Errorf("pretrain: drill: %w", err)
	}
	if len(s) != 1 {
		return agentevolver.Sample{}, fmt.Errorf("pretrain: drill gives %d samples, want 1", len(s))
	}
	s[0].TaskID = id
	return s[0], nil
}
