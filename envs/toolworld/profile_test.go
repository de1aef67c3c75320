package toolworld

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/org/agentevolver"
)

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestProfileJSON checks the profile against the reference §4.2 shape and
// its JSON round trip.
func TestProfileJSON(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	p := e.Profile()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := keysOf(doc), []string{"background", "entities", "name", "task_preference"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("profile keys %v, want %v", got, want)
	}
	if doc["name"] != Name || doc["background"] == "" {
		t.Fatalf("name %v, background %v", doc["name"], doc["background"])
	}
	entities, _ := doc["entities"].([]any)
	var names []string
	for _, raw := range entities {
		ent, _ := raw.(map[string]any)
		if got, want := keysOf(ent), []string{"attrs", "description", "name", "opts"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("entity keys %v, want %v", got, want)
		}
		names = append(names, ent["name"].(string))
		attrs, _ := ent["attrs"].(map[string]any)
		opts, _ := ent["opts"].([]any)
		if len(attrs) == 0 || len(opts) == 0 {
			t.Fatalf("entity %v has no attrs or opts", ent["name"])
		}
		for _, o := range opts {
			op, _ := o.(map[string]any)
			if got, want := keysOf(op), []string{"description", "name"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("opt keys %v, want %v", got, want)
			}
		}
	}
	if want := []string{"contacts", "calendar", "files", "bank"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("entities %v, want %v", names, want)
	}
	pref, _ := doc["task_preference"].(map[string]any)
	if got, want := keysOf(pref), []string{"num_entities", "num_opts", "relation_difficulty"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("task_preference keys %v, want %v", got, want)
	}
	if rd := pref["relation_difficulty"].(float64); rd < 1 || rd > 3 {
		t.Fatalf("relation_difficulty %v outside 1..3", rd)
	}
	var back agentevolver.EnvProfile
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Fatalf("round trip changed the profile:\n%+v\n%+v", back, p)
	}
}

// TestProfileDifficultyFollowsLevels checks that the profile's relation
// difficulty is that of the levels the environment lists.
func TestProfileDifficultyFollowsLevels(t *testing.T) {
	for maxLevel, want := range map[int]int{0: 3, 1: 1, 2: 2, 3: 3} {
		e := newEnv(t, Config{TrainSize: 3, ValSize: 1, TestSize: 1, MaxLevel: maxLevel})
		if got := e.Profile().TaskPreference.RelationDifficulty; got != want {
			t.Errorf("max_level %d: relation difficulty %d, want %d", maxLevel, got, want)
		}
	}
}
