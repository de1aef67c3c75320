package diplomacy_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
)

// TestReplayFromJSON: a game's history survives JSON and replays to the
// same position; an edited log is refused.
func TestReplayFromJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	g := diplomacy.NewGame(diplomacy.Config{})
	for range 12 {
		poss := g.PossibleOrders()
		for _, p := range diplomacy.Powers() {
			var texts []string
			for _, loc := range g.OrderableLocations(p) {
				texts = append(texts, poss[loc][rng.IntN(len(poss[loc]))].String())
			}
			if _, _, err := g.Submit(p, texts); err != nil {
				t.Fatal(err)
			}
		}
		process(t, g)
	}
	data, err := json.Marshal(g.History())
	if err != nil {
		t.Fatal(err)
	}
	var hist []diplomacy.PhaseRecord
	if err := json.Unmarshal(data, &hist); err != nil {
		t.Fatal(err)
	}
	again, err := diplomacy.Replay(diplomacy.Standard(), diplomacy.Config{}, hist)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(g.Position())
	b, _ := json.Marshal(again.Position())
	if string(a) != string(b) || again.Phase() != g.Phase() {
		t.Fatalf("replayed position differs:\n%s\n%s", a, b)
	}
	// Edit the log: a unit moved without an order.
	hist[3].Position.Units[0].Loc = "BOH"
	if _, err := diplomacy.Replay(diplomacy.Standard(), diplomacy.Config{}, hist); !errors.Is(err, diplomacy.ErrState) {
		t.Fatalf("edited log: %v", err)
	}
}

func TestResultJSON(t *testing.T) {
	r := diplomacy.Bounce | diplomacy.Dislodged
	b, err := json.Marshal(r)
	if err != nil || string(b) != `["bounce","dislodged"]` {
		t.Fatalf("%s %v", b, err)
	}
	var back diplomacy.Result
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Fatalf("%v %v", back, err)
	}
	if b, _ := json.Marshal(diplomacy.Result(0)); string(b) != "[]" {
		t.Fatalf("ok: %s", b)
	}
	if err := json.Unmarshal([]byte(`["boom"]`), &back); !errors.Is(err, diplomacy.ErrSyntax) {
		t.Fatalf("bad code: %v", err)
	}
}
