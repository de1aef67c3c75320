package contextmgr_test

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver"
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
		exp, cleaned, ok := s.Strip(content, agentevolver.TrainMode(mode))
		if !ok {
			if exp != "" || cleaned != content {
				t.Fatalf("no strip, but (%q, %q)", exp, cleaned)
			}
			return
		}
		if mode != "" && agentevolver.TrainMode(mode) != agentevolver.TrainDiscard {
			t.Fatalf("stripped in mode %q", mode)
		}
		if len(cleaned) >= len(content) || !strings.Contains(content, exp) {
			t.Fatalf("strip of %q gave (%q, %q)", content, exp, cleaned)
		}
	})
}

// stepHeaderPairs are the header pairs FuzzParseResponseSteps draws from:
// ChatML-like headers that cannot overlap, then pairs that can (across
// roles, one a prefix of the other, identical, self-overlapping) and empty
// ones.
var stepHeaderPairs = []struct {
	a, u     []int
	disjoint bool // no two occurrences of either header can overlap
}{
	{[]int{1, 2, 3}, []int{1, 4, 3}, true},
	{[]int{1, 1}, []int{1, 2}, false},
	{[]int{1, 2}, []int{1, 2, 3}, false},
	{[]int{5}, []int{5}, false},
	{[]int{2, 2}, nil, false},
	{nil, []int{3}, true},
	{[]int{1, 2, 1}, []int{2, 1, 2}, false},
	{nil, nil, true},
}

// FuzzParseResponseSteps checks ParseResponseSteps against properties that
// do not depend on how it works: segments are non-empty, ordered, disjoint,
// hold their own tokens, start right after a header of their role (or at 0
// for the implicit first policy turn), end at a header (or the end) and
// contain no header occurrence; every token outside the segments after the
// first one lies in a header; steps are the policy segments in order with
// their observations; step ids are exactly what the steps say, never
// decrease, and without MarkObservation are -1 on every header token.
func FuzzParseResponseSteps(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 3, 0, 9, 0}, false, uint8(0))
	f.Add([]byte{1, 0, 2, 0, 3, 0, 9, 0, 1, 0, 4, 0, 3, 0, 8, 0}, true, uint8(0))
	f.Add([]byte{9, 0, 1, 0, 2, 0, 3, 0, 1, 0, 2, 0, 3, 0, 7, 0}, false, uint8(0))
	f.Add([]byte{1, 0, 1, 0, 2, 0, 1, 0, 1, 0, 3, 0}, false, uint8(1))
	f.Add([]byte{1, 0, 2, 0, 3, 0, 4, 0, 1, 0, 2, 0, 5, 0}, true, uint8(2))
	f.Add([]byte{7, 0, 5, 0, 6, 0, 5, 0}, false, uint8(3))
	f.Add([]byte{}, false, uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, mark bool, pair uint8) {
		hp := stepHeaderPairs[int(pair)%len(stepHeaderPairs)]
		a, u := hp.a, hp.u
		ids := make([]int, len(raw)/2)
		for i := range ids {
			ids[i] = int(binary.LittleEndian.Uint16(raw[2*i:])) % 12
		}
		p := contextmgr.ParseResponseSteps(ids, contextmgr.StepOptions{AssistantHeader: a, UserHeader: u, MarkObservation: mark})
		n := len(ids)
		if len(p.StepIDs) != n {
			t.Fatalf("%d step ids for %d tokens", len(p.StepIDs), n)
		}
		matches := func(pos int, hdr []int) bool {
			return len(hdr) > 0 && pos >= 0 && pos+len(hdr) <= n && slices.Equal(ids[pos:pos+len(hdr)], hdr)
		}
		// inHeader[i]: token i lies in some occurrence of a header.
		inHeader := make([]bool, n)
		for pos := range n {
			for _, hdr := range [][]int{a, u} {
				if matches(pos, hdr) {
					for i := pos; i < pos+len(hdr); i++ {
						inHeader[i] = true
					}
				}
			}
		}

		covered := make([]bool, n)
		prevEnd := 0
		for k, s := range p.Segments {
			if s.Start < prevEnd || s.Start >= s.End || s.End > n || !slices.Equal(s.Tokens, ids[s.Start:s.End]) {
				t.Fatalf("segment %d %+v (after end %d) is empty, out of order or holds other tokens", k, s, prevEnd)
			}
			if k == 0 && s.Role != agentevolver.RoleAssistant {
				t.Fatalf("first segment is a %s turn", s.Role)
			}
			hdr := a
			if s.Role == agentevolver.RoleUser {
				hdr = u
			}
			if !matches(s.Start-len(hdr), hdr) && !(s.Start == 0 && s.Role == agentevolver.RoleAssistant) {
				t.Fatalf("segment %d %+v does not follow a %s header", k, s, s.Role)
			}
			if s.End < n && !matches(s.End, a) && !matches(s.End, u) {
				t.Fatalf("segment %d %+v does not end at a header", k, s)
			}
			for pos := s.Start; pos < s.End; pos++ {
				if matches(pos, a) || matches(pos, u) {
					t.Fatalf("segment %d %+v holds a header at %d", k, s, pos)
				}
				covered[pos] = true
			}
			prevEnd = s.End
		}
		if len(p.Segments) > 0 {
			for pos := p.Segments[0].Start; pos < n; pos++ {
				if !covered[pos] && !inHeader[pos] {
					t.Fatalf("token %d is in no segment and no header", pos)
				}
			}
		} else if len(p.Steps) != 0 {
			t.Fatalf("%d steps without segments", len(p.Steps))
		}

		want := make([]int, n)
		for i := range want {
			want[i] = -1
		}
		k := 0
		for i := 0; i < len(p.Segments); i++ {
			s := p.Segments[i]
			if s.Role != agentevolver.RoleAssistant {
				continue
			}
			if k >= len(p.Steps) {
				t.Fatalf("policy segment %d has no step (%d steps)", i, len(p.Steps))
			}
			st := p.Steps[k]
			obsEnd := s.End
			var obs []int
			for j := i + 1; j < len(p.Segments) && p.Segments[j].Role != agentevolver.RoleAssistant; j++ {
				obsEnd = p.Segments[j].End
				obs = append(obs, p.Segments[j].Tokens...)
			}
			if st.ActionStart != s.Start || st.ActionEnd != s.End || st.ObsStart != s.End || st.ObsEnd != obsEnd ||
				!slices.Equal(st.ActionTokens, s.Tokens) || !slices.Equal(st.ObservationTokens, obs) {
				t.Fatalf("step %d %+v does not match its segments", k, st)
			}
			end := st.ActionEnd
			if mark {
				end = st.ObsEnd
			}
			for pos := st.ActionStart; pos < end; pos++ {
				want[pos] = k
			}
			k++
		}
		if k != len(p.Steps) {
			t.Fatalf("%d steps for %d policy segments", len(p.Steps), k)
		}
		if !slices.Equal(p.StepIDs, want) {
			t.Fatalf("step ids %v, want %v", p.StepIDs, want)
		}
		last := -1
		for i, id := range p.StepIDs {
			if id == -1 {
				continue
			}
			if id < last {
				t.Fatalf("step id %d at %d after %d", id, i, last)
			}
			last = id
			if hp.disjoint && !mark && inHeader[i] {
				t.Fatalf("header token %d has step id %d", i, id)
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
