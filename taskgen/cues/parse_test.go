package cues

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAction(t *testing.T) {
	for _, c := range []struct {
		reply, want string
		ok          bool
	}{
		{"think\n<action>\n  do it \n</action> more <action>2</action>", "do it", true},
		{"  just text  ", "just text", false},
		{"<action>unclosed", "<action>unclosed", false},
		{"", "", false},
		{"<action></action>", "", true},
	} {
		got, ok := ParseAction(c.reply)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseAction(%q) = %q, %v; want %q, %v", c.reply, got, ok, c.want, c.ok)
		}
	}
}

func TestParseTasksKeepsIndentation(t *testing.T) {
	reply := "<task>\nDescription: Pay\nQuery: Pay Ann\nConfidence: 0.85\nActionSequence:\n    # step1\n    ```python\n    for x in apis:\n        print(x)\n    ```\n\n</task>" +
		"<task>\nQuery: only a query\n</task><task>\n**Description**: d\n**Query**: q\nConfidence: high\n</task><task>broken"
	tasks, rep := ParseTasks(reply)
	if rep.Blocks != 3 || rep.Incomplete != 1 || len(tasks) != 2 {
		t.Fatalf("report %+v, %d tasks", rep, len(tasks))
	}
	want := "# step1\n```python\nfor x in apis:\n    print(x)\n```"
	if tasks[0].GT != want || tasks[0].Confidence != 0.85 || tasks[0].Query != "Pay Ann" {
		t.Errorf("task 0 = %+v\nGT %q\nwant %q", tasks[0], tasks[0].GT, want)
	}
	if tasks[1].Confidence != 1 || tasks[1].GT != "" || tasks[1].Description != "d" {
		t.Errorf("task 1 = %+v", tasks[1])
	}
}

func TestParseJudge(t *testing.T) {
	for reply, want := range map[string]bool{
		"Success: true\nReason: ok": true, "SUCCESS: **true**": true, "**Success:** true": true,
		"Successful: TRUE": true, "Success: false": false, "": false, "success:true": false,
	} {
		if got := ParseJudge(reply); got != want {
			t.Errorf("ParseJudge(%q) = %v", reply, got)
		}
	}
}

func TestParseRewrites(t *testing.T) {
	got := ParseRewrites("1. A harder one\n- 2、An easier one\n\nsame\n• A harder one\nthird\nfourth", "same", 3)
	if want := []string{"A harder one", "An easier one", "third"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseConcepts(t *testing.T) {
	if got, want := ParseConcepts(`["a, b", 'c', ""]`), []string{"a, b", "c"}; !slices.Equal(got, want) {
		t.Errorf("list: %q", got)
	}
	if got, want := ParseConcepts("x, y\nz"), []string{"x", "y", "z"}; !slices.Equal(got, want) {
		t.Errorf("text: %q", got)
	}
}

func TestSplitActions(t *testing.T) {
	for _, c := range []struct {
		gt   string
		want []string
	}{
		{"<action>a</action> x <action> b </action>", []string{"a", "b"}},
		{"intro\n# step1\n```tool\nx\n```\n# Step 2:\ny", []string{"```tool\nx\n```", "y"}},
		{"```sql\nS\n```\ntext\n```submit\nS\n```", []string{"```sql\nS\n```", "```submit\nS\n```"}},
		{"1. first\n- second\n\nthird", []string{"first", "second", "third"}},
		{"", nil},
	} {
		if got := SplitActions(c.gt); !slices.Equal(got, c.want) {
			t.Errorf("SplitActions(%q) = %q, want %q", c.gt, got, c.want)
		}
	}
}

func TestFallbackMemory(t *testing.T) {
	ts := []Triplet{{Action: "a", Reward: 1}, {Action: "b"}, {Action: "a", Reward: 1}}
	got := FallbackMemory(ts)
	want := "Previous exploration attempted 3 actions. Successful actions include: a. Recently tried actions: a, b, a."
	if got != want {
		t.Errorf("got %q", got)
	}
}

func TestSafeName(t *testing.T) {
	for _, id := range []string{"tw-train-0001", "hs1:tw:files.write,a%20b", "..", "", "a/b", strings.Repeat("x", 300)} {
		n := safeName(id)
		if n == "" || strings.ContainsAny(n, "/\\:") || n == ".." || len(n) > 120 {
			t.Errorf("safeName(%q) = %q", id, n)
		}
	}
	if safeName("a/b") == safeName("a:b") {
		t.Error("distinct ids share a name")
	}
}
