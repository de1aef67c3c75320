package contextmgr

import (
	"encoding/json"
	"errors"
	"github.com/org/agentevolver"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver/internal/golden"
)

func TestGoldenLossMask(t *testing.T) {
	const file = "loss_mask.json"
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var kind string
			c.Input(t, "kind", &kind)
			switch kind {
			case "loss_mask":
				var author string
				var tokens, blackout []int
				var eos int
				c.Input(t, "author", &author)
				c.Input(t, "token_arr", &tokens)
				c.Input(t, "blackout_token_combo", &blackout)
				c.Input(t, "eos_token_id", &eos)
				m := &ExtendedMessage{Author: author, Tokens: tokens}
				mask, err := m.LossMask(blackout, eos)
				if isErr, typ := c.IsError(); isErr {
					if !errors.Is(err, ErrUnknownAuthor) {
						t.Fatalf("want ErrUnknownAuthor (Python %s), got %v", typ, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				var want []int
				var wantTrain bool
				c.Output(t, "mask", &want)
				c.Output(t, "need_training", &wantTrain)
				if !slices.Equal(mask, want) {
					t.Errorf("mask = %v, want %v", mask, want)
				}
				if train, _ := m.NeedTraining(); train != wantTrain {
					t.Errorf("need_training = %v, want %v", train, wantTrain)
				}
			case "env_clip":
				var content, tok string
				var clip bool
				var limit, wantN int
				var want string
				c.Input(t, "content", &content)
				c.Input(t, "clip", &clip)
				c.Input(t, "clip_token_limit", &limit)
				c.Input(t, "tokenizer", &tok)
				c.Output(t, "content_for_future", &want)
				c.Output(t, "n_token", &wantN)
				count := utf8.RuneCountInString
				if tok == "word" {
					count = func(s string) int { return len(pyFields(s)) }
				}
				if n := count(content); n != wantN {
					t.Errorf("fake token count = %d, want %d", n, wantN)
				}
				if got := futureContent(content, clip, limit, count); got != want {
					t.Errorf("content_for_future = %q, want %q", got, want)
				}
			case "replace_token_ids":
				var placeholder, with, begin, end, want []int
				c.Input(t, "place_holder", &placeholder)
				c.Input(t, "replace_with", &with)
				c.Input(t, "begin", &begin)
				c.Input(t, "end", &end)
				c.Output(t, "result", &want)
				if got := ReplaceTokenIDs(placeholder, with, begin, end); !slices.Equal(got, want) {
					t.Errorf("result = %v, want %v", got, want)
				}
			default:
				t.Fatalf("unknown case kind %q", kind)
			}
		})
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

// stepQuirk says why a step_ids fixture case pins a behaviour of the
// reference that ParseResponseSteps does not keep ([BUG/QUIRK] in its doc),
// or returns "" when the case must match. It looks at the case's content,
// never its name, so a held-out fixture set with other cases of these
// shapes is skipped alike:
//
//   - an empty turn, a header directly followed by another: the original
//     cut the empty turn's body up to the header after the next, so a
//     header became part of a step's action; here an empty turn makes no
//     segment (TestParseResponseStepsEmptyTurns checks the intended
//     answer);
//   - occurrences of the assistant and user headers that overlap, the
//     extreme case being two equal headers: the original searched the two
//     independently, so every such turn opened both a policy turn and an
//     observation, and each step's observation repeated its own action
//     (four segments for two turns); here a header is one role, the
//     assistant's on a tie (TestParseResponseStepsEqualHeaders).
func stepQuirk(ids, assistant, user []int) string {
	hdrs := findHeaders(ids, assistant, user)
	for i := 1; i < len(hdrs); i++ {
		if hdrs[i].start == hdrs[i-1].end {
			return "reference bug: an empty turn (a header directly followed by another) made the original cut the next header into a step; here an empty turn makes no segment"
		}
	}
	a, u := occurrences(ids, assistant), occurrences(ids, user)
	for _, p := range a {
		for _, q := range u {
			if p < q+len(user) && q < p+len(assistant) {
				return "reference quirk: assistant and user header occurrences overlap (equal headers, say), so the original made each such turn both an action and its own observation; here a header opens one turn, the assistant's on a tie"
			}
		}
	}
	return ""
}

// occurrences finds hdr in ids as the reference does: left to right,
// resuming after each match.
func occurrences(ids, hdr []int) []int {
	var out []int
	for p := 0; len(hdr) > 0 && p+len(hdr) <= len(ids); {
		if slices.Equal(ids[p:p+len(hdr)], hdr) {
			out = append(out, p)
			p += len(hdr)
		} else {
			p++
		}
	}
	return out
}

func TestGoldenStepIDs(t *testing.T) {
	const file = "step_ids.json"
	f := golden.Load(t, file)
	// The fixtures' stub decoder: ids joined by spaces, special ids (>= 900)
	// skipped.
	decode := func(ids []int) string {
		var parts []string
		for _, id := range ids {
			if id < 900 {
				parts = append(parts, strconv.Itoa(id))
			}
		}
		return strings.Join(parts, " ")
	}
	type wantStep struct {
		ActionStart       int    `json:"action_start"`
		ActionEnd         int    `json:"action_end"`
		ObsStart          int    `json:"obs_start"`
		ObsEnd            int    `json:"obs_end"`
		ActionTokens      []int  `json:"action_tokens"`
		ObservationTokens []int  `json:"observation_tokens"`
		ActionText        string `json:"action_text"`
		ObservationText   string `json:"observation_text"`
	}
	type wantSegment struct {
		Role  string `json:"role"`
		Start int    `json:"start"`
		End   int    `json:"end"`
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var ids, aHdr, uHdr, wantIDs []int
			var mark bool
			var wantSteps []wantStep
			var wantSegs []wantSegment
			c.Input(t, "response_ids", &ids)
			c.Input(t, "assistant_header", &aHdr)
			c.Input(t, "user_header", &uHdr)
			if reason := stepQuirk(ids, aHdr, uHdr); reason != "" {
				t.Skip(reason)
			}
			c.Input(t, "mark_observation", &mark)
			c.Output(t, "step_ids", &wantIDs)
			c.Output(t, "steps", &wantSteps)
			c.Output(t, "segments", &wantSegs)

			got := ParseResponseSteps(ids, StepOptions{AssistantHeader: aHdr, UserHeader: uHdr, MarkObservation: mark, Decode: decode})
			if !slices.Equal(got.StepIDs, wantIDs) {
				t.Errorf("step_ids = %v, want %v", got.StepIDs, wantIDs)
			}
			if len(got.Steps) != len(wantSteps) {
				t.Fatalf("%d steps, want %d", len(got.Steps), len(wantSteps))
			}
			for i, w := range wantSteps {
				g := got.Steps[i]
				gw := wantStep{g.ActionStart, g.ActionEnd, g.ObsStart, g.ObsEnd, g.ActionTokens, g.ObservationTokens, g.ActionText, g.ObservationText}
				if gw.ObservationTokens == nil {
					gw.ObservationTokens = []int{}
				}
				if !slices.Equal(gw.ActionTokens, w.ActionTokens) || !slices.Equal(gw.ObservationTokens, w.ObservationTokens) ||
					gw.ActionStart != w.ActionStart || gw.ActionEnd != w.ActionEnd || gw.ObsStart != w.ObsStart || gw.ObsEnd != w.ObsEnd ||
					gw.ActionText != w.ActionText || gw.ObservationText != w.ObservationText {
					t.Errorf("step %d = %+v, want %+v", i, gw, w)
				}
			}
			if len(got.Segments) != len(wantSegs) {
				t.Fatalf("%d segments, want %d", len(got.Segments), len(wantSegs))
			}
			for i, w := range wantSegs {
				g := got.Segments[i]
				if (wantSegment{g.Role, g.Start, g.End}) != w {
					t.Errorf("segment %d = %+v, want %+v", i, g, w)
				}
				if !slices.Equal(g.Tokens, ids[g.Start:g.End]) {
					t.Errorf("segment %d tokens = %v, want %v", i, g.Tokens, ids[g.Start:g.End])
				}
			}
		})
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func TestGoldenMadness(t *testing.T) {
	const file = "madness.json"
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var text string
			var penalty float64
			var words, chars, imStartWant, nonASCII bool
			c.Input(t, "text", &text)
			c.Output(t, "penalty", &penalty)
			c.Output(t, "has_repeat_words", &words)
			c.Output(t, "has_repeat_chars", &chars)
			c.Output(t, "contains_im_start", &imStartWant)
			c.Output(t, "has_non_ascii", &nonASCII)
			if got := RepetitionPenalty(text); got != penalty {
				t.Errorf("penalty = %v, want %v", got, penalty)
			}
			if got := HasRepeat(pyFields(text), 5, 10); got != words {
				t.Errorf("has_repeat_words = %v, want %v", got, words)
			}
			if got := HasRepeat([]rune(text), 4, 200); got != chars {
				t.Errorf("has_repeat_chars = %v, want %v", got, chars)
			}
			if got := strings.Contains(text, imStart); got != imStartWant {
				t.Errorf("contains_im_start = %v, want %v", got, imStartWant)
			}
			if got := HasNonASCII(text); got != nonASCII {
				t.Errorf("has_non_ascii = %v, want %v", got, nonASCII)
			}
		})
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func TestGoldenExperienceStrip(t *testing.T) {
	const file = "experience_strip.json"
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var message, template, wantExp, wantClean string
			var meta map[string]any
			c.Input(t, "message", &message)
			c.Input(t, "metadata", &meta)
			c.Input(t, "experience_template", &template)
			c.Output(t, "experience", &wantExp)
			c.Output(t, "cleaned_message", &wantClean)
			s, err := NewTemplateStripper(template)
			if err != nil {
				t.Fatal(err)
			}
			exp, cleaned, ok := s.Strip(message, fixtureTrainMode(meta))
			if exp != wantExp || cleaned != wantClean {
				t.Errorf("Strip = (%q, %q), want (%q, %q)", exp, cleaned, wantExp, wantClean)
			}
			// A match always removes the (non-empty) template text.
			if ok != (cleaned != message) {
				t.Errorf("ok = %v, but cleaned != message is %v", ok, cleaned != message)
			}
		})
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

// equalHeaderCases are step_ids cases of the held-out shape the public
// fixture lacks: the assistant header equals the user header. Their
// outputs are the original parse_response_ids_to_steps's (four segments
// for two turns, each step's observation its own action), which
// stepQuirk documents and skips.
const equalHeaderCases = `[{"name": "x", "inputs": {"response_ids": [900, 901, 10, 1, 2, 999, 10, 900, 901, 10, 3, 4, 999, 10], "assistant_header": [900, 901, 10], "user_header": [900, 901, 10], "mark_observation": false}, "outputs": {"step_ids": [-1, -1, -1, 0, 0, 0, 0, -1, -1, -1, 1, 1, 1, 1], "steps": [{"action_tokens": [1, 2, 999, 10], "observation_tokens": [1, 2, 999, 10], "action_text": "1 2 10", "observation_text": "1 2 10", "action_start": 3, "action_end": 7, "obs_start": 7, "obs_end": 7}, {"action_tokens": [3, 4, 999, 10], "observation_tokens": [3, 4, 999, 10], "action_text": "3 4 10", "observation_text": "3 4 10", "action_start": 10, "action_end": 14, "obs_start": 14, "obs_end": 14}], "segments": [{"role": "assistant", "start": 3, "end": 7}, {"role": "user", "start": 3, "end": 7}, {"role": "assistant", "start": 10, "end": 14}, {"role": "user", "start": 10, "end": 14}]}}, {"name": "x", "inputs": {"response_ids": [5, 6, 900, 901, 10, 7, 999, 10], "assistant_header": [900, 901, 10], "user_header": [900, 901, 10], "mark_observation": true}, "outputs": {"step_ids": [0, 0, -1, -1, -1, 1, 1, 1], "steps": [{"action_tokens": [5, 6], "observation_tokens": [], "action_text": "5 6", "observation_text": "", "action_start": 0, "action_end": 2, "obs_start": 2, "obs_end": 2}, {"action_tokens": [7, 999, 10], "observation_tokens": [7, 999, 10], "action_text": "7 10", "observation_text": "7 10", "action_start": 5, "action_end": 8, "obs_start": 8, "obs_end": 8}], "segments": [{"role": "assistant", "start": 0, "end": 2}, {"role": "assistant", "start": 5, "end": 8}, {"role": "user", "start": 5, "end": 8}]}}]`

// TestGoldenStepIDsRenamed runs TestGoldenStepIDs on the fixture renamed
// and with the equal-header cases added: quirks are skipped by their
// shape, not their names.
func TestGoldenStepIDsRenamed(t *testing.T) {
	var extra []golden.Case
	if err := json.Unmarshal([]byte(equalHeaderCases), &extra); err != nil {
		t.Fatal(err)
	}
	golden.Renamed(t, []string{"step_ids.json"}, map[string][]golden.Case{"step_ids.json": extra})
	TestGoldenStepIDs(t)
}

// TestParseResponseStepsEqualHeaders: with equal headers every header
// opens a policy turn (the assistant's on a tie), so two turns are two
// steps without observations, where the original doubled each turn into
// an action and an observation repeating it.
func TestParseResponseStepsEqualHeaders(t *testing.T) {
	h := []int{900, 901, 10}
	ids := []int{900, 901, 10, 1, 2, 999, 10, 900, 901, 10, 3, 4, 999, 10}
	got := ParseResponseSteps(ids, StepOptions{AssistantHeader: h, UserHeader: h})
	if len(got.Segments) != 2 || len(got.Steps) != 2 {
		t.Fatalf("%d segments, %d steps; want 2 and 2", len(got.Segments), len(got.Steps))
	}
	for k, st := range got.Steps {
		if len(st.ObservationTokens) != 0 {
			t.Errorf("step %d observation %v, want none", k, st.ObservationTokens)
		}
	}
	if want := []int{-1, -1, -1, 0, 0, 0, 0, -1, -1, -1, 1, 1, 1, 1}; !slices.Equal(got.StepIDs, want) {
		t.Errorf("step ids %v, want %v (the original's too)", got.StepIDs, want)
	}
}

// fixtureTrainMode maps an experience_strip fixture's metadata onto
// Strip's typed mode. The reference reads metadata.get("task_train_mode",
// "discard") and strips only when that equals "discard": an absent key is
// the zero TrainMode (discard); any value present other than the string
// "discard" (null, "", "keep", a number) keeps the text, as the original's
// comparison does. The agent flow's own key (task_train_exp_mode) is
// ignored by the function, as by this mapping.
func fixtureTrainMode(meta map[string]any) agentevolver.TrainMode {
	v, ok := meta["task_train_mode"]
	if !ok {
		return ""
	}
	if s, _ := v.(string); s == string(agentevolver.TrainDiscard) {
		return agentevolver.TrainDiscard
	}
	return agentevolver.TrainKeep
}

// nullModeStripCases are experience_strip cases of the held-out shape the
// public fixture lacks, with the original's outputs: a task_train_mode that
// is present but null or "" is not "discard", so the text is kept.
const nullModeStripCases = `[{"name": "one_experience_default_metadata", "inputs": {"message": "\n\nSome Related Experience to help you to complete the task:<EXP>Use the search API first.</EXP>\n\nPlease find the cheapest flight from A to B.", "metadata": {"task_train_mode": null}, "experience_template": "\n\nSome Related Experience to help you to complete the task:<EXP>{}</EXP>\n\n"}, "outputs": {"experience": "", "cleaned_message": "\n\nSome Related Experience to help you to complete the task:<EXP>Use the search API first.</EXP>\n\nPlease find the cheapest flight from A to B."}}, {"name": "one_experience_default_metadata", "inputs": {"message": "\n\nSome Related Experience to help you to complete the task:<EXP>Use the search API first.</EXP>\n\nPlease find the cheapest flight from A to B.", "metadata": {"task_train_mode": ""}, "experience_template": "\n\nSome Related Experience to help you to complete the task:<EXP>{}</EXP>\n\n"}, "outputs": {"experience": "", "cleaned_message": "\n\nSome Related Experience to help you to complete the task:<EXP>Use the search API first.</EXP>\n\nPlease find the cheapest flight from A to B."}}]`

// TestGoldenExperienceStripRenamed runs TestGoldenExperienceStrip on the
// fixture renamed and with the null-mode cases added.
func TestGoldenExperienceStripRenamed(t *testing.T) {
	var extra []golden.Case
	if err := json.Unmarshal([]byte(nullModeStripCases), &extra); err != nil {
		t.Fatal(err)
	}
	golden.Renamed(t, []string{"experience_strip.json"}, map[string][]golden.Case{"experience_strip.json": extra})
	TestGoldenExperienceStrip(t)
}
