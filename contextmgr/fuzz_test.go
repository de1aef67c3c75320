package contextmgr_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/org/agentevolver/contextmgr"
)

func FuzzParseClipDecision(f *testing.F) {
	f.Add("```json\n[{\"id\":\"ER001\",\"useful\":true,\"action\":\"keep\"}]\n```")
	f.Add("```\n[{\"id\":\"AR002\",\"useful\":false,\"action\":\"remove\"}]```")
	f.Add("```json [] ```")
	f.Add("```\n[{\"id\":null}]\n```")
	f.Add("no fence at all")
	f.Fuzz(func(t *testing.T, reply string) {
		ds, err := contextmgr.ParseClipDecision(reply)
		if err != nil {
			if !errors.Is(err, contextmgr.ErrClipReply) {
				t.Fatalf("error %v does not wrap ErrClipReply", err)
			}
			return
		}
		if strings.Count(reply, "```") != 2 || len(ds) > contextmgr.MaxClipDecisions {
			t.Fatalf("accepted %q", reply)
		}
		for _, d := range ds {
			if d.ID == "" || (d.Action != contextmgr.ClipKeep && d.Action != contextmgr.ClipRemove && d.Action != contextmgr.ClipCompress) {
				t.Fatalf("accepted decision %+v", d)
			}
		}
	})
}

func FuzzParseMarkdownSections(f *testing.F) {
	f.Add("# current step\n1\n# next-step instruction code\n```python\n# c\nx()\n```")
	f.Add("## Current Step:\r\n```\n# current step\n~~~\n")
	f.Add("#\n#######\n```a```\n")
	names := []string{"current step", "previous instruction code", "relevant environment feedback", "next-step instruction code"}
	f.Fuzz(func(t *testing.T, text string) {
		got := contextmgr.ParseMarkdownSections(text, names)
		for k, v := range got {
			if v == "" || strings.TrimSpace(v) != v {
				t.Fatalf("section %q = %q is empty or untrimmed", k, v)
			}
			found := false
			for _, n := range names {
				found = found || n == k
			}
			if !found {
				t.Fatalf("unexpected section %q", k)
			}
			if len(v) > len(text) {
				t.Fatalf("section %q longer than the input", k)
			}
		}
	})
}

func FuzzTemplateStripper(f *testing.F) {
	f.Add(strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", "tip", 1)+"task", "discard")
	f.Add("<EXP>a</EXP>b</EXP>", "keep")
	f.Add("", "")
	s := &contextmgr.TemplateStripper{}
	f.Fuzz(func(t *testing.T, content, mode string) {
		meta := map[string]any{}
		if mode != "" {
			meta[contextmgr.StripModeKey] = mode
		}
		exp, cleaned, ok := s.Strip(content, meta)
		if !ok {
			if exp != "" || cleaned != content {
				t.Fatalf("no strip, but (%q, %q)", exp, cleaned)
			}
			return
		}
		if mode != "" && mode != contextmgr.TrainModeDiscard {
			t.Fatalf("stripped in mode %q", mode)
		}
		if len(cleaned) >= len(content) || !strings.Contains(content, exp) {
			t.Fatalf("strip of %q gave (%q, %q)", content, exp, cleaned)
		}
	})
}

func FuzzParseResponseSteps(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 3, 0, 9, 0}, false)
	f.Add([]byte{1, 0, 2, 0, 3, 0, 9, 0, 1, 0, 4, 0, 3, 0, 8, 0}, true)
	f.Add([]byte{}, false)
	a, u := []int{1, 2, 3}, []int{1, 4, 3}
	f.Fuzz(func(t *testing.T, raw []byte, mark bool) {
		ids := make([]int, len(raw)/2)
		for i := range ids {
			ids[i] = int(binary.LittleEndian.Uint16(raw[2*i:])) % 12
		}
		p := contextmgr.ParseResponseSteps(ids, contextmgr.StepOptions{AssistantHeader: a, UserHeader: u, MarkObservation: mark})
		if len(p.StepIDs) != len(ids) {
			t.Fatalf("%d step ids for %d tokens", len(p.StepIDs), len(ids))
		}
		prevEnd := 0
		for k, st := range p.Steps {
			if st.ActionStart < prevEnd || st.ActionStart >= st.ActionEnd || st.ActionEnd != st.ObsStart || st.ObsStart > st.ObsEnd || st.ObsEnd > len(ids) {
				t.Fatalf("step %d has bad bounds %+v", k, st)
			}
			for p2 := st.ActionStart; p2 < st.ActionEnd; p2++ {
				if p.StepIDs[p2] != k {
					t.Fatalf("token %d of step %d has id %d", p2, k, p.StepIDs[p2])
				}
			}
			prevEnd = st.ObsEnd
		}
		for i, id := range p.StepIDs {
			if id < -1 || id >= len(p.Steps) {
				t.Fatalf("step id %d at %d with %d steps", id, i, len(p.Steps))
			}
		}
	})
}

func FuzzRepetitionPenalty(f *testing.F) {
	f.Add("go go go go go go go go go go go")
	f.Add("hello <|im_start|> world")
	f.Add("\xff\xfe abc")
	f.Fuzz(func(t *testing.T, text string) {
		p := contextmgr.RepetitionPenalty(text)
		if p != 0 && p != -1 {
			t.Fatalf("penalty %v", p)
		}
		if strings.Contains(text, "<|im_start|>") && p != -1 {
			t.Fatal("markup not penalised")
		}
		_ = contextmgr.HasNonASCII(text)
		_ = contextmgr.StripThink(text)
	})
}
