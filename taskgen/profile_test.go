package taskgen

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// musicProfile is the profile whose renderings the reference's
// get_instruction and get_task_preference_instruction produced (the
// expectations below are their outputs, attributes in name order).
func musicProfile() agentevolver.EnvProfile {
	return agentevolver.EnvProfile{
		Name:       "Xiaoming",
		Background: "A music fan.",
		Entities: []agentevolver.Entity{
			{
				Name: "Song", Description: "A track.",
				Attrs: map[string]string{"Title": "The name.", "Rating": "The rating."},
				Opts:  []agentevolver.Operation{{Name: "play", Description: "Play it."}, {Name: "rate", Description: "Rate it."}},
			},
			{Name: "Account", Description: "The account.", Attrs: map[string]string{}},
		},
		TaskPreference: agentevolver.TaskPreference{NumEntities: 2, NumOpts: 3, RelationDifficulty: 1},
	}
}

func TestInstruction(t *testing.T) {
	tests := []struct {
		name string
		p    agentevolver.EnvProfile
		want string
	}{
		{
			name: "entities",
			p:    musicProfile(),
			want: "### Environment Overview\n- **User Name**: Xiaoming\n- **User Background**: A music fan.\n\n### Entities in the Environment\n#### Entity: Song\n- Description: A track.\n- Attributes:\n  - **Rating**: The rating.\n  - **Title**: The name.\n- Available Operations:\n  - **play**: Play it.\n  - **rate**: Rate it.\n\n#### Entity: Account\n- Description: The account.\n- Attributes:\n- Available Operations:\n\n### Task Preferences\nThe task should involve the following characteristics:\n- **Average number of entities involved**: 2\n- **Average number of operations involved**: 3\n- **Relation difficulty**: Easy: Involves only one entity or one attribute. No cross-entity or cross-attribute dependencies. ",
		},
		{
			name: "no entities",
			p:    agentevolver.EnvProfile{Name: "n", Background: "b", TaskPreference: agentevolver.TaskPreference{RelationDifficulty: 2}},
			want: "### Environment Overview\n- **User Name**: n\n- **User Background**: b\n\n### Entities in the Environment\n### Task Preferences\nThe task should involve the following characteristics:\n- **Average number of entities involved**: 0\n- **Average number of operations involved**: 0\n- **Relation difficulty**: Medium: Involves multiple entities or attributes, but operations are independent of each other. No prerequisite conditions or sequential dependencies.",
		},
		{
			name: "invalid difficulty",
			p:    agentevolver.EnvProfile{Name: "n", TaskPreference: agentevolver.TaskPreference{RelationDifficulty: 7}},
			want: "### Environment Overview\n- **User Name**: n\n- **User Background**: \n\n### Entities in the Environment\n### Task Preferences\nThe task should involve the following characteristics:\n- **Average number of entities involved**: 0\n- **Average number of operations involved**: 0\n- **Relation difficulty**: unknown (7)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Instruction(tt.p); got != tt.want {
				t.Errorf("Instruction =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestInstructionDeterministic(t *testing.T) {
	p := musicProfile()
	p.Entities[0].Attrs = map[string]string{}
	for _, k := range strings.Fields("z y x w v u t s r q p o n m l k j i h g f e d c b a") {
		p.Entities[0].Attrs[k] = "attr " + k
	}
	first := Instruction(p)
	if !strings.Contains(first, "  - **a**: attr a\n  - **b**: attr b\n") {
		t.Fatalf("attributes not in name order:\n%s", first)
	}
	for range 20 {
		if got := Instruction(p); got != first {
			t.Fatal("Instruction is not deterministic")
		}
	}
}

func TestPreferenceInstruction(t *testing.T) {
	tests := []struct {
		name    string
		p       agentevolver.EnvProfile
		rubrics []string
		want    string
	}{
		{
			name:    "rubrics",
			p:       musicProfile(),
			rubrics: []string{"- Use at least two apps.", "- Name concrete amounts."},
			want:    "The task should involve the following characteristics:\n- **Average number of entities involved**: 2\n- **Average number of operations involved**: 3\n- **Relation difficulty**: Easy: Involves only one entity or one attribute. No cross-entity or cross-attribute dependencies. \n\n**Rubrics**:\n- Use at least two apps.\n- Name concrete amounts.\nYou are required to follow these preferences strictly.\n",
		},
		{
			name: "no rubrics",
			p:    agentevolver.EnvProfile{TaskPreference: agentevolver.TaskPreference{NumEntities: 1, NumOpts: 1, RelationDifficulty: 3}},
			want: "The task should involve the following characteristics:\n- **Average number of entities involved**: 1\n- **Average number of operations involved**: 1\n- **Relation difficulty**: Hard: Involves multiple entities or attributes, and operations require prior condition checks or depend on the results of previous steps. Requires reasoning and decision-making.\n\n**Rubrics**:\nYou are required to follow these preferences strictly.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PreferenceInstruction(tt.p, tt.rubrics); got != tt.want {
				t.Errorf("PreferenceInstruction =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

const validProfileJSON = `{
  "name": "Xiaoming",
  "background": "A music fan.",
  "entities": [
    {"name": "Song", "description": "A track.",
     "attrs": {"Title": "The name.", "Rating": "The rating."},
     "opts": [{"name": "play", "description": "Play it."}, {"name": "rate", "description": "Rate it."}]},
    {"name": "Account", "description": "The account.", "attrs": {}, "opts": []}
  ],
  "task_preference": {"num_entities": 2, "num_opts": 3, "relation_difficulty": 1}
}`

func TestParseProfile(t *testing.T) {
	got, err := ParseProfile([]byte(validProfileJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := musicProfile()
	want.Entities[1].Opts = []agentevolver.Operation{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseProfile = %#v\nwant %#v", got, want)
	}
	// The JSON form of the profile type parses back to the same profile.
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseProfile(data)
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("round trip: %v, %#v", err, again)
	}
}

// Lists and maps may be missing or null (Go writes an empty slice as
// null); they mean empty.
func TestParseProfileEmptyLists(t *testing.T) {
	for _, data := range []string{
		`{"name":"n","background":"","task_preference":{"num_entities":1,"num_opts":1,"relation_difficulty":1}}`,
		`{"name":"n","background":"","entities":null,"task_preference":{"num_entities":1,"num_opts":1,"relation_difficulty":1}}`,
		`{"name":"n","background":"","entities":[{"name":"e","description":""}],"task_preference":{"num_entities":1,"num_opts":1,"relation_difficulty":1}}`,
		`{"name":"n","background":"","entities":[{"name":"e","description":"","attrs":null,"opts":null}],"task_preference":{"num_entities":1,"num_opts":1,"relation_difficulty":1}}`,
	} {
		p, err := ParseProfile([]byte(data))
		if err != nil {
			t.Errorf("ParseProfile(%s): %v", data, err)
			continue
		}
		for _, e := range p.Entities {
			if e.Attrs == nil || e.Opts == nil {
				t.Errorf("ParseProfile(%s): entity %+v has nil attrs or opts", data, e)
			}
		}
	}
	// A profile built in Go, with nil slices, survives its JSON form.
	p := agentevolver.EnvProfile{Name: "n", Entities: []agentevolver.Entity{{Name: "e"}}, TaskPreference: agentevolver.TaskPreference{RelationDifficulty: 2}}
	data, _ := json.Marshal(p)
	if _, err := ParseProfile(data); err != nil {
		t.Errorf("ParseProfile(%s): %v", data, err)
	}
}

func TestParseProfileErrors(t *testing.T) {
	edit := func(from, to string) string {
		if !strings.Contains(validProfileJSON, from) {
			t.Fatalf("edit: %q not in the profile", from)
		}
		return strings.Replace(validProfileJSON, from, to, 1)
	}
	manyEntities := `{"name":"n","background":"","task_preference":{"num_entities":1,"num_opts":1,"relation_difficulty":1},"entities":[` +
		strings.Repeat(`{"name":"e","description":"","attrs":{},"opts":[]},`, MaxProfileEntities) +
		`{"name":"e","description":"","attrs":{},"opts":[]}]}`
	tests := []struct {
		name, data, wantMsg string
	}{
		{"not json", `{"name":`, "unexpected EOF"},
		{"not an object", `[1, 2]`, "cannot unmarshal"},
		{"trailing data", validProfileJSON + ` {}`, "data after"},
		{"unknown field", edit(`"background"`, `"backgrund": "x", "background"`), "unknown field"},
		{"unknown preference field", edit(`"relation_difficulty": 1`, `"relation_difficulty": 1, "relation_dificulty": 2`), "unknown field"},
		{"missing name", edit(`"name": "Xiaoming",`, ``), `missing "name"`},
		{"null background", edit(`"background": "A music fan."`, `"background": null`), `missing "background"`},
		{"missing preference", `{"name":"n","background":"","entities":[]}`, `missing "task_preference"`},
		{"missing difficulty", edit(`, "relation_difficulty": 1`, ``), `missing "relation_difficulty"`},
		{"missing num_opts", edit(`"num_opts": 3, `, ``), `missing "num_opts"`},
		{"misspelt attrs", edit(`"attrs": {}`, `"atrs": {}`), "unknown field"},
		{"missing entity description", edit(`"description": "The account.", `, ``), `entities[1]: missing "description"`},
		{"attrs not a map", edit(`"attrs": {}`, `"attrs": []`), "cannot unmarshal"},
		{"attr not a string", edit(`"The name."`, `5`), "cannot unmarshal"},
		{"missing opt description", edit(`, "description": "Rate it."`, ``), `entities[0].opts[1]: missing "description"`},
		{"difficulty 0", edit(`"relation_difficulty": 1`, `"relation_difficulty": 0`), "relation_difficulty 0"},
		{"difficulty 4", edit(`"relation_difficulty": 1`, `"relation_difficulty": 4`), "relation_difficulty 4"},
		{"difficulty float", edit(`"relation_difficulty": 1`, `"relation_difficulty": 2.5`), "cannot unmarshal"},
		{"difficulty string", edit(`"relation_difficulty": 1`, `"relation_difficulty": "2"`), "cannot unmarshal"},
		{"negative count", edit(`"num_entities": 2`, `"num_entities": -1`), "num_entities -1"},
		{"huge count", edit(`"num_opts": 3`, `"num_opts": 1000000`), "num_opts 1000000"},
		{"empty profile name", edit(`"name": "Xiaoming"`, `"name": "  "`), "name is empty"},
		{"empty entity name", edit(`"name": "Account"`, `"name": ""`), "entities[1]: name is empty"},
		{"empty opt name", edit(`"name": "play"`, `"name": ""`), "opts[0]: name is empty"},
		{"empty attr name", edit(`"Title"`, `""`), "attribute name is empty"},
		{"too many entities", manyEntities, "entities, more than"},
		{"too large", `{"name": "` + strings.Repeat("x", MaxProfileBytes) + `"}`, "bytes, more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProfile([]byte(tt.data))
			if !errors.Is(err, ErrInvalidProfile) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("ParseProfile: err = %v, want ErrInvalidProfile mentioning %q", err, tt.wantMsg)
			}
		})
	}
}

func TestValidateProfile(t *testing.T) {
	tooManyOpts := musicProfile()
	tooManyOpts.Entities[0].Opts = make([]agentevolver.Operation, MaxEntityOpts+1)
	for i := range tooManyOpts.Entities[0].Opts {
		tooManyOpts.Entities[0].Opts[i].Name = "op"
	}
	tests := []struct {
		name   string
		mutate func(*agentevolver.EnvProfile)
		ok     bool
	}{
		{"valid", func(*agentevolver.EnvProfile) {}, true},
		{"empty background and descriptions", func(p *agentevolver.EnvProfile) {
			p.Background, p.Entities[0].Description, p.Entities[0].Opts[0].Description = "", "", ""
		}, true},
		{"nil attrs", func(p *agentevolver.EnvProfile) { p.Entities[0].Attrs = nil }, true},
		{"zero difficulty", func(p *agentevolver.EnvProfile) { p.TaskPreference.RelationDifficulty = 0 }, false},
		{"blank name", func(p *agentevolver.EnvProfile) { p.Name = "\t" }, false},
		{"too many opts", func(p *agentevolver.EnvProfile) { *p = tooManyOpts }, false},
		{"negative opts", func(p *agentevolver.EnvProfile) { p.TaskPreference.NumOpts = -2 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := musicProfile()
			tt.mutate(&p)
			err := ValidateProfile(p)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalidProfile)) {
				t.Errorf("ValidateProfile = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestRelationDifficultyText(t *testing.T) {
	for level, prefix := range map[int]string{1: "Easy: ", 2: "Medium: ", 3: "Hard: "} {
		if s, ok := RelationDifficultyText(level); !ok || !strings.HasPrefix(s, prefix) {
			t.Errorf("RelationDifficultyText(%d) = %q, %v", level, s, ok)
		}
	}
	for _, level := range []int{-1, 0, 4} {
		if s, ok := RelationDifficultyText(level); ok || s != "" {
			t.Errorf("RelationDifficultyText(%d) = %q, %v; want none", level, s, ok)
		}
	}
}
