package cues

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseTasks(f *testing.F) {
	f.Add("<task>\nDescription: d\nQuery: q\nConfidence: 0.5\nActionSequence:\n  a\n    b\n</task>")
	f.Add("<task><task>Query:</task></task>")
	f.Add("<task>\n**Query:** x\nDescription: y\nConfidence: NaN\n</task>")
	f.Fuzz(func(t *testing.T, reply string) {
		tasks, rep := ParseTasks(reply)
		if len(tasks) > rep.Blocks || rep.Blocks > MaxTasksPerReply {
			t.Fatalf("%d tasks of %d blocks", len(tasks), rep.Blocks)
		}
		for _, tk := range tasks {
			if tk.Description == "" || tk.Query == "" || !(tk.Confidence >= 0 && tk.Confidence <= 1) {
				t.Fatalf("bad task %+v", tk)
			}
			if len(tk.GT) > MaxFieldBytes || len(tk.Query) > MaxFieldBytes {
				t.Fatal("field over the limit")
			}
			if strings.HasSuffix(tk.GT, "\n") || strings.HasPrefix(tk.GT, "\n") {
				t.Fatalf("untrimmed GT %q", tk.GT)
			}
		}
	})
}

func FuzzParseAction(f *testing.F) {
	f.Add("x <action>y</action>")
	f.Add("<action><action></action>")
	f.Fuzz(func(t *testing.T, reply string) {
		a, ok := ParseAction(reply)
		if a != strings.TrimSpace(a) || len(a) > len(reply) {
			t.Fatalf("action %q of %q", a, reply)
		}
		if ok && !strings.Contains(reply, "</action>") {
			t.Fatal("ok without a closing tag")
		}
	})
}

func FuzzParseRewrites(f *testing.F) {
	f.Add("1. a\n- b\n• c", "a", 3)
	f.Fuzz(func(t *testing.T, reply, orig string, k int) {
		k = k % 8
		got := ParseRewrites(reply, orig, k)
		if len(got) > max(k, 0) {
			t.Fatalf("%d variants, k %d", len(got), k)
		}
		seen := map[string]bool{}
		for _, v := range got {
			if v == "" || v == strings.TrimSpace(orig) || seen[v] {
				t.Fatalf("bad variant %q", v)
			}
			seen[v] = true
		}
	})
}

func FuzzParseConcepts(f *testing.F) {
	f.Add(`["a", 'b,c', d]`)
	f.Add("x,\ny")
	f.Fuzz(func(t *testing.T, reply string) {
		got := ParseConcepts(reply)
		if len(got) > MaxConcepts {
			t.Fatal("too many")
		}
		for _, c := range got {
			if c == "" || len(c) > MaxConceptBytes {
				t.Fatalf("bad concept %q", c)
			}
		}
	})
}

func FuzzSplitActions(f *testing.F) {
	f.Add("# step1\n```tool\nx\n```\n# step2\ny")
	f.Add("<action>a</action><action>")
	f.Add("```\nunclosed")
	f.Fuzz(func(t *testing.T, gt string) {
		got := SplitActions(gt)
		if len(got) > MaxActions {
			t.Fatal("too many actions")
		}
		for _, a := range got {
			if a == "" || a != strings.TrimSpace(a) {
				t.Fatalf("bad action %q", a)
			}
			if utf8.ValidString(gt) && !utf8.ValidString(a) {
				t.Fatalf("invalid UTF-8 from valid input: %q", a)
			}
		}
	})
}

func FuzzParseJudge(f *testing.F) {
	f.Add("Success: true")
	f.Fuzz(func(t *testing.T, reply string) {
		if ParseJudge(reply) && !strings.Contains(strings.ToLower(strings.ReplaceAll(reply, "*", "")), ": true") {
			t.Fatal("success without a true verdict")
		}
	})
}
