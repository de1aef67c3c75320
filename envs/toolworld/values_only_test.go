package toolworld

import (
	"slices"
	"testing"
)

// TestValuesOnlyWorlds: worlds that vary only their values keep the
// classic names and prompt, draw people beyond the classic pool, and every
// expert solution scores 1.
func TestValuesOnlyWorlds(t *testing.T) {
	classic := newEnv(t, Config{Seed: 3, TrainSize: 60, ValSize: 12, TestSize: 6, SystemPrompt: "Help the user."})
	e := newEnv(t, Config{Seed: 3, Worlds: 8, WorldSeed: 5, ValuesOnly: true, TrainSize: 60, ValSize: 12, TestSize: 6, SystemPrompt: "Help the user."})
	classicPrompt := classic.systemPrompt(classic.tasks["tw-train-0000"])
	newPeople := 0
	for i, id := range splitIDs(t, e, SplitTrain) {
		task := e.tasks[id]
		if p := e.systemPrompt(task); p != classicPrompt {
			t.Fatalf("%s: prompt %q, want the classic one %q", id, p, classicPrompt)
		}
		info, err := e.Task(id)
		if err != nil {
			t.Fatal(err)
		}
		if info.World != i%8 {
			t.Fatalf("%s: world %d, want %d", id, info.World, i%8)
		}
		for _, name := range e.shown(task).pools.people {
			if !slices.Contains(personNames(), name) {
				newPeople++
			}
		}
		actions, err := e.Solve(id)
		if err != nil {
			t.Fatal(err)
		}
		in := started(t, e, id, "x")
		for _, a := range actions {
			c, err := ParseAction(a)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := e.cat.byID[c.App+"."+c.API]; !ok {
				t.Fatalf("%s: the expert calls %s.%s, not a classic name", id, c.App, c.API)
			}
			stepExpert(t, in, id, a)
		}
	}
	if newPeople == 0 {
		t.Error("no world drew a person outside the classic pool")
	}
}
