package avalon

import (
	"errors"
	"testing"
)

func newTestEngine(t *testing.T, n int) *Engine {
	t.Helper()
	s, _ := SetupFor(n)
	d, err := DealRoles(7, s, Roles{})
	if err != nil {
		t.Fatal(err)
	}
	d.Leader = 0
	e, err := NewEngine(s, d)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func votes(n int, yes int) []bool {
	v := make([]bool, n)
	for i := range yes {
		v[i] = true
	}
	return v
}

func TestEngineFifthProposalForced(t *testing.T) {
	e := newTestEngine(t, 5)
	for p := range MaxProposals {
		if e.Proposal() != p || e.Leader() != p {
			t.Fatalf("proposal %d: engine at proposal %d, leader %d", p, e.Proposal(), e.Leader())
		}
		if err := e.ProposeTeam(e.Leader(), []int{0, 1}); err != nil {
			t.Fatal(err)
		}
		approved, forced, err := e.VoteTeam(votes(5, 0))
		if err != nil {
			t.Fatal(err)
		}
		if want := p == MaxProposals-1; approved != want || forced != want {
			t.Fatalf("proposal %d: approved %v forced %v", p, approved, forced)
		}
	}
	if e.Phase() != PhaseQuest || e.Proposal() != 0 {
		t.Fatalf("after forced approval: phase %v proposal %d", e.Phase(), e.Proposal())
	}
}

func TestEngineMajority(t *testing.T) {
	for _, tc := range []struct {
		n, yes int
		want   bool
	}{{5, 2, false}, {5, 3, true}, {6, 3, false}, {6, 4, true}, {10, 5, false}, {10, 6, true}} {
		e := newTestEngine(t, tc.n)
		if err := e.ProposeTeam(0, exampleTeam(e.TeamSize())); err != nil {
			t.Fatal(err)
		}
		approved, _, err := e.VoteTeam(votes(tc.n, tc.yes))
		if err != nil || approved != tc.want {
			t.Errorf("%d players, %d yes: approved %v (%v), want %v", tc.n, tc.yes, approved, err, tc.want)
		}
	}
}

func TestEngineFailsNeeded(t *testing.T) {
	e := newTestEngine(t, 7)
	play := func(cards []bool) bool {
		t.Helper()
		if err := e.ProposeTeam(e.Leader(), exampleTeam(e.TeamSize())); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.VoteTeam(votes(7, 7)); err != nil {
			t.Fatal(err)
		}
		ok, _, err := e.VoteQuest(cards)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !play([]bool{true, true}) || play([]bool{true, false, true}) || !play([]bool{true, true, true}) {
		t.Fatal("quests 1-3 wrong")
	}
	// Quest 4 with 7 players needs two fails.
	if !play([]bool{false, true, true, true}) {
		t.Fatal("one fail failed quest 4 of a 7-player game")
	}
	if e.Phase() != PhaseAssassination {
		t.Fatalf("phase %v after three successes", e.Phase())
	}
	roles := e.Roles()
	merlin := -1
	for i, r := range roles {
		if r == Merlin {
			merlin = i
		}
	}
	if _, err := e.Assassinate((e.Assassin()+1)%7, merlin); !errors.Is(err, ErrIllegalAction) {
		t.Fatalf("non-assassin assassinated: %v", err)
	}
	if _, err := e.Assassinate(e.Assassin(), e.Assassin()); !errors.Is(err, ErrIllegalAction) {
		t.Fatalf("self-assassination: %v", err)
	}
	goodWins, err := e.Assassinate(e.Assassin(), merlin)
	if err != nil || goodWins || !e.Done() {
		t.Fatalf("assassinating Merlin: goodWins %v err %v done %v", goodWins, err, e.Done())
	}
	if err := e.ProposeTeam(e.Leader(), []int{0, 1}); !errors.Is(err, ErrIllegalAction) {
		t.Fatalf("action after the end: %v", err)
	}
}

func TestEngineThreeFailsEvilWins(t *testing.T) {
	e := newTestEngine(t, 5)
	for q := range 3 {
		if err := e.ProposeTeam(e.Leader(), exampleTeam(e.TeamSize())); err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.VoteTeam(votes(5, 5)); err != nil {
			t.Fatal(err)
		}
		cards := votes(e.TeamSize(), e.TeamSize()-1)
		if _, _, err := e.VoteQuest(cards); err != nil {
			t.Fatal(err)
		}
		if q < 2 && e.Done() {
			t.Fatal("done too early")
		}
	}
	if !e.Done() || e.GoodWins() || e.Reason() != "three quests failed" {
		t.Fatalf("done %v goodWins %v reason %q", e.Done(), e.GoodWins(), e.Reason())
	}
}

func TestEngineIllegal(t *testing.T) {
	e := newTestEngine(t, 5)
	cases := []struct {
		name string
		err  error
	}{
		{"vote in selection", func() error { _, _, err := e.VoteTeam(votes(5, 5)); return err }()},
		{"wrong leader", e.ProposeTeam(1, []int{0, 1})},
		{"wrong size", e.ProposeTeam(0, []int{0, 1, 2})},
		{"duplicate", e.ProposeTeam(0, []int{1, 1})},
		{"out of range", e.ProposeTeam(0, []int{0, 5})},
		{"negative", e.ProposeTeam(0, []int{-1, 2})},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrIllegalAction) {
			t.Errorf("%s: err = %v", c.name, c.err)
		}
	}
	if err := e.ProposeTeam(0, []int{3, 1}); err != nil {
		t.Fatal(err)
	}
	if got := e.Team(); got[0] != 1 || got[1] != 3 {
		t.Errorf("team not sorted: %v", got)
	}
	if _, _, err := e.VoteTeam(votes(4, 4)); !errors.Is(err, ErrIllegalAction) {
		t.Errorf("short vote list: %v", err)
	}
	s, _ := SetupFor(5)
	if _, err := NewEngine(s, Deal{Roles: []Role{Merlin, Servant, Servant, Minion, Minion}}); !errors.Is(err, ErrConfig) {
		t.Errorf("deal without assassin: %v", err)
	}
	if _, err := NewEngine(s, Deal{Roles: []Role{Merlin, Servant, Assassin, Minion, Minion}}); !errors.Is(err, ErrConfig) {
		t.Errorf("deal with 3 evil: %v", err)
	}
}
