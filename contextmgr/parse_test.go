package contextmgr_test

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver/contextmgr"
)

func TestParseClipDecision(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  []contextmgr.ClipDecision
	}{
		{"json tag", "```json\n[{\"id\":\"ER001\",\"useful\":true,\"action\":\"keep\"}]\n```",
			[]contextmgr.ClipDecision{{ID: "ER001", Useful: true, Action: "keep"}}},
		{"no tag, prose around", "Here:\n```\n[{\"id\":\"AR002\",\"useful\":false,\"action\":\"remove\"},{\"id\":\"ER003\",\"useful\":true,\"action\":\"compress\"}]\n```\nDone.",
			[]contextmgr.ClipDecision{{ID: "AR002", Action: "remove"}, {ID: "ER003", Useful: true, Action: "compress"}}},
		{"empty list", "```json\n[]\n```", []contextmgr.ClipDecision{}},
		{"no fence", "[{\"id\":\"ER001\",\"useful\":true,\"action\":\"keep\"}]", nil},
		{"two blocks", "```json\n[]\n```\n```json\n[]\n```", nil},
		{"trailing comma", "```json\n[{\"id\":\"ER001\",\"useful\":true,\"action\":\"keep\"},]\n```", nil},
		{"missing field", "```json\n[{\"id\":\"ER001\",\"action\":\"keep\"}]\n```", nil},
		{"null field", "```json\n[{\"id\":\"ER001\",\"useful\":null,\"action\":\"keep\"}]\n```", nil},
		{"wrong type", "```json\n[{\"id\":1,\"useful\":true,\"action\":\"keep\"}]\n```", nil},
		{"unknown action", "```json\n[{\"id\":\"ER001\",\"useful\":true,\"action\":\"shred\"}]\n```", nil},
		{"empty id", "```json\n[{\"id\":\"\",\"useful\":true,\"action\":\"keep\"}]\n```", nil},
		{"object not list", "```json\n{\"id\":\"ER001\",\"useful\":true,\"action\":\"keep\"}\n```", nil},
		{"trailing data", "```json\n[] []\n```", nil},
		{"too long", "```json\n[]" + strings.Repeat(" ", contextmgr.MaxClipReplyBytes) + "\n```", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := contextmgr.ParseClipDecision(tt.reply)
			if tt.want == nil {
				if !errors.Is(err, contextmgr.ErrClipReply) {
					t.Fatalf("want ErrClipReply, got %v (%v)", err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseMarkdownSections(t *testing.T) {
	names := []string{"current step", "next-step instruction code"}
	tests := []struct {
		name string
		text string
		want map[string]string
	}{
		{"both", "# current step\n1\n\n# next-step instruction code\n```python\nx()\n```", map[string]string{"current step": "1", "next-step instruction code": "```python\nx()\n```"}},
		{"loose headings", "## Current Step:\n 2 \n### **Next-step instruction code** ##\ny()", map[string]string{"current step": "2", "next-step instruction code": "y()"}},
		{"hash inside code is content", "# next-step instruction code\n```\n# current step\nz()\n```\n# current step\n3", map[string]string{"current step": "3", "next-step instruction code": "```\n# current step\nz()\n```"}},
		{"tilde fence", "# next-step instruction code\n~~~\n# current step\n~~~", map[string]string{"next-step instruction code": "~~~\n# current step\n~~~"}},
		{"inline fence does not open a block", "# next-step instruction code\n```a()```\n# current step\n4", map[string]string{"current step": "4", "next-step instruction code": "```a()```"}},
		{"other headings are content", "# current step\n5\n## detail\nmore", map[string]string{"current step": "5\n## detail\nmore"}},
		{"empty section not found", "# current step\n\n# next-step instruction code\nq()", map[string]string{"next-step instruction code": "q()"}},
		{"first of duplicates wins", "# current step\nfirst\n# current step\nsecond", map[string]string{"current step": "first"}},
		{"no heading", "just text", map[string]string{}},
		{"hash without space is not a heading", "#current step\nx", map[string]string{}},
		{"crlf", "# current step\r\n6\r\n", map[string]string{"current step": "6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := contextmgr.ParseMarkdownSections(tt.text, names)
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStripThink(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<think>a</think>b", "b"},
		{"<think>a\nb</think>\n c \n<think>d</think>e", "c \ne"},
		{"x</think>y<think>", "xy"},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		if got := contextmgr.StripThink(tt.in); got != tt.want {
			t.Errorf("StripThink(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClipEnvContent(t *testing.T) {
	tests := []struct {
		name           string
		content        string
		nTokens, limit int
		want           string
	}{
		{"under limit", "abc", 3, 200, "abc"},
		{"clipped by code points", strings.Repeat("é", 300), 300, 250, strings.Repeat("é", 150) + contextmgr.TruncationMarker},
		// The reference keeps text from the wrong end here.
		{"limit below margin", strings.Repeat("a", 300), 300, 50, contextmgr.TruncationMarker},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contextmgr.ClipEnvContent(tt.content, tt.nTokens, tt.limit); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFindSublist(t *testing.T) {
	tests := []struct {
		big, small []int
		last       bool
		want       int
	}{
		{[]int{1, 2, 1, 2}, []int{1, 2}, false, 0},
		{[]int{1, 2, 1, 2}, []int{1, 2}, true, 2},
		{[]int{1, 2}, []int{3}, false, -1},
		{[]int{1}, []int{1, 2}, true, -1},
		{[]int{1, 2}, nil, false, 0},
		{[]int{1, 2}, nil, true, 2},
	}
	for _, tt := range tests {
		if got := contextmgr.FindSublist(tt.big, tt.small, tt.last); got != tt.want {
			t.Errorf("FindSublist(%v, %v, %v) = %d, want %d", tt.big, tt.small, tt.last, got, tt.want)
		}
	}
}

func TestStepHeaders(t *testing.T) {
	a, u, err := contextmgr.StepHeaders(charTokenizer{}, chatML{defaultSystem: "sys"}, tokenizerOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, enc("<|im_start|>assistant\n")) || !slices.Equal(u, enc("<|im_start|>user\n")) {
		t.Errorf("headers = %q, %q", decode(t, a), decode(t, u))
	}
	// A sample's response, cut into steps with these headers.
	resp := enc("<|im_start|>assistant\nA<|im_end|>\n<|im_start|>user\nO<|im_end|>\n<|im_start|>assistant\nB<|im_end|>\n")
	p := contextmgr.ParseResponseSteps(resp, contextmgr.StepOptions{AssistantHeader: a, UserHeader: u, Decode: func(ids []int) string { return decode(t, ids) }})
	if len(p.Steps) != 2 || p.Steps[0].ActionText != "A<|im_end|>\n" || p.Steps[0].ObservationText != "O<|im_end|>\n" || p.Steps[1].ActionText != "B<|im_end|>\n" {
		t.Errorf("steps = %+v", p.Steps)
	}
}

func TestTemplateStripperNeedsPlaceholder(t *testing.T) {
	if _, err := contextmgr.NewTemplateStripper("no placeholder"); !errors.Is(err, contextmgr.ErrConfig) {
		t.Fatalf("want ErrConfig, got %v", err)
	}
	var zero contextmgr.TemplateStripper
	exp, cleaned, ok := zero.Strip(strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", "tip", 1)+"task", "")
	if !ok || exp != "tip" || cleaned != "task" {
		t.Errorf("zero stripper: %q, %q, %v", exp, cleaned, ok)
	}
}

func TestParseResponseStepsEmptyTurns(t *testing.T) {
	// Headers: assistant [1 2 3], user [1 4 3] unless a case says otherwise.
	a, u := []int{1, 2, 3}, []int{1, 4, 3}
	const x = -1
	tests := []struct {
		name        string
		ids         []int
		a, u        []int // nil: the default headers
		mark        bool
		wantIDs     []int
		wantActions [][]int
		wantObs     [][]int
	}{
		{name: "implicit turn, then an empty turn, then a turn",
			ids:     []int{9, 1, 2, 3, 1, 2, 3, 7},
			wantIDs: []int{0, x, x, x, x, x, x, 1}, wantActions: [][]int{{9}, {7}}, wantObs: [][]int{nil, nil}},
		{name: "three consecutive assistant headers",
			ids:     []int{1, 2, 3, 1, 2, 3, 1, 2, 3, 5},
			wantIDs: []int{x, x, x, x, x, x, x, x, x, 0}, wantActions: [][]int{{5}}, wantObs: [][]int{nil}},
		{name: "only headers: assistant, user, assistant (golden only_headers, intended answer)",
			ids:     []int{1, 2, 3, 1, 4, 3, 1, 2, 3},
			wantIDs: []int{x, x, x, x, x, x, x, x, x}},
		{name: "only an assistant header",
			ids:     []int{1, 2, 3},
			wantIDs: []int{x, x, x}},
		{name: "assistant header at the end",
			ids:     []int{1, 2, 3, 5, 1, 2, 3},
			wantIDs: []int{x, x, x, 0, x, x, x}, wantActions: [][]int{{5}}, wantObs: [][]int{nil}},
		{name: "user header at the end",
			ids:     []int{1, 2, 3, 5, 1, 4, 3},
			wantIDs: []int{x, x, x, 0, x, x, x}, wantActions: [][]int{{5}}, wantObs: [][]int{nil}},
		{name: "empty assistant turn before a user turn: a leading observation",
			ids:     []int{1, 2, 3, 1, 4, 3, 6, 1, 2, 3, 7},
			wantIDs: []int{x, x, x, x, x, x, x, x, x, x, 0}, wantActions: [][]int{{7}}, wantObs: [][]int{nil}},
		{name: "empty user turn",
			ids:     []int{1, 2, 3, 5, 1, 4, 3, 1, 2, 3, 6},
			wantIDs: []int{x, x, x, 0, x, x, x, x, x, x, 1}, wantActions: [][]int{{5}, {6}}, wantObs: [][]int{nil, nil}},
		{name: "empty assistant turn mid-response: both observations go to the step before",
			ids:     []int{1, 2, 3, 5, 1, 4, 3, 6, 1, 2, 3, 1, 4, 3, 8, 1, 2, 3, 7},
			wantIDs: []int{x, x, x, 0, x, x, x, x, x, x, x, x, x, x, x, x, x, x, 1}, wantActions: [][]int{{5}, {7}}, wantObs: [][]int{{6, 8}, nil}},
		{name: "the same with MarkObservation: the observation span is marked",
			ids: []int{1, 2, 3, 5, 1, 4, 3, 6, 1, 2, 3, 1, 4, 3, 8, 1, 2, 3, 7}, mark: true,
			wantIDs: []int{x, x, x, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, x, x, x, 1}, wantActions: [][]int{{5}, {7}}, wantObs: [][]int{{6, 8}, nil}},
		{name: "user header right after the implicit turn",
			ids:     []int{9, 1, 4, 3},
			wantIDs: []int{0, x, x, x}, wantActions: [][]int{{9}}, wantObs: [][]int{nil}},
		{name: "headers of two roles overlapping: the leftmost wins",
			ids: []int{1, 2, 3, 5}, a: []int{1, 2}, u: []int{2, 3},
			wantIDs: []int{x, x, 0, 0}, wantActions: [][]int{{3, 5}}, wantObs: [][]int{nil}},
		{name: "one header a prefix of the other: the longer wins",
			ids: []int{1, 2, 3, 4, 1, 2, 5}, a: []int{1, 2}, u: []int{1, 2, 3},
			wantIDs: []int{x, x, x, x, x, x, 0}, wantActions: [][]int{{5}}, wantObs: [][]int{nil}},
		{name: "identical headers: assistant",
			ids: []int{7, 1, 6, 1, 8}, a: []int{1}, u: []int{1},
			wantIDs: []int{0, x, 1, x, 2}, wantActions: [][]int{{7}, {6}, {8}}, wantObs: [][]int{nil, nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := contextmgr.StepOptions{AssistantHeader: a, UserHeader: u, MarkObservation: tt.mark}
			if tt.a != nil || tt.u != nil {
				opts.AssistantHeader, opts.UserHeader = tt.a, tt.u
			}
			p := contextmgr.ParseResponseSteps(tt.ids, opts)
			if !slices.Equal(p.StepIDs, tt.wantIDs) {
				t.Errorf("step ids %v, want %v", p.StepIDs, tt.wantIDs)
			}
			var actions, obs [][]int
			for _, st := range p.Steps {
				actions = append(actions, st.ActionTokens)
				obs = append(obs, st.ObservationTokens)
			}
			if !reflect.DeepEqual(actions, tt.wantActions) || !reflect.DeepEqual(obs, tt.wantObs) {
				t.Errorf("actions %v observations %v, want %v %v", actions, obs, tt.wantActions, tt.wantObs)
			}
		})
	}
}
