package avalon

import (
	"errors"
	"slices"
	"testing"
)

func TestSetupTables(t *testing.T) {
	for n := MinPlayers; n <= MaxPlayers; n++ {
		s, err := SetupFor(n)
		if err != nil {
			t.Fatalf("SetupFor(%d): %v", n, err)
		}
		if s.Good+s.Evil != n {
			t.Errorf("%d players: %d good + %d evil", n, s.Good, s.Evil)
		}
		for q := range NumQuests {
			if s.TeamSize[q] < 2 || s.TeamSize[q] > n {
				t.Errorf("%d players quest %d: team %d", n, q, s.TeamSize[q])
			}
		}
		wantFour := 1
		if n >= 7 {
			wantFour = 2
		}
		if s.FailsNeeded[3] != wantFour {
			t.Errorf("%d players: quest 4 needs %d fails, want %d", n, s.FailsNeeded[3], wantFour)
		}
	}
	if got, _ := SetupFor(6); got.TeamSize != [5]int{2, 3, 4, 3, 4} {
		t.Errorf("6 players team sizes %v", got.TeamSize)
	}
	for _, n := range []int{0, 4, 11, -1} {
		if _, err := SetupFor(n); !errors.Is(err, ErrConfig) {
			t.Errorf("SetupFor(%d) err = %v, want ErrConfig", n, err)
		}
	}
}

func TestCast(t *testing.T) {
	s5, _ := SetupFor(5)
	s10, _ := SetupFor(10)
	tests := []struct {
		name  string
		s     Setup
		roles Roles
		want  []Role
		err   bool
	}{
		{"default5", s5, Roles{}, []Role{Merlin, Servant, Servant, Assassin, Minion}, false},
		{"percival-morgana5", s5, Roles{Percival: true, Morgana: true}, []Role{Merlin, Percival, Servant, Assassin, Morgana}, false},
		{"too-many-evil5", s5, Roles{Morgana: true, Mordred: true}, nil, true},
		{"all10", s10, Roles{Percival: true, Morgana: true, Mordred: true, Oberon: true},
			[]Role{Merlin, Percival, Servant, Servant, Servant, Servant, Assassin, Morgana, Mordred, Oberon}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.roles.Cast(tc.s)
			if tc.err {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("err = %v, want ErrConfig", err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("Cast = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestDealRolesSeeded(t *testing.T) {
	s, _ := SetupFor(7)
	a, err := DealRoles(42, s, Roles{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DealRoles(42, s, Roles{})
	if !slices.Equal(a.Roles, b.Roles) || a.Leader != b.Leader {
		t.Fatalf("same seed, different deals: %v/%d and %v/%d", a.Roles, a.Leader, b.Roles, b.Leader)
	}
	// Over many seeds every seat leads first sometimes (the reference could
	// never pick the last seat) and every seat is sometimes Merlin.
	leaders := make([]int, s.Players)
	merlin := make([]int, s.Players)
	differs := false
	for seed := range uint64(2000) {
		d, err := DealRoles(seed, s, Roles{})
		if err != nil {
			t.Fatal(err)
		}
		leaders[d.Leader]++
		merlin[slices.Index(d.Roles, Merlin)]++
		if !slices.Equal(d.Roles, a.Roles) {
			differs = true
		}
		sorted := slices.Clone(d.Roles)
		slices.Sort(sorted)
		want, _ := Roles{}.Cast(s)
		slices.Sort(want)
		if !slices.Equal(sorted, want) {
			t.Fatalf("seed %d dealt %v", seed, d.Roles)
		}
	}
	for i := range s.Players {
		if leaders[i] < 200 || merlin[i] < 200 {
			t.Errorf("seat %d: first leader %d times, Merlin %d times of 2000", i, leaders[i], merlin[i])
		}
	}
	if !differs {
		t.Error("every seed dealt the same roles")
	}
}

func TestRoleText(t *testing.T) {
	for r := Merlin; r <= Assassin; r++ {
		b, err := r.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Role
		if err := back.UnmarshalText(b); err != nil || back != r {
			t.Errorf("round trip of %v: %v, %v", r, back, err)
		}
	}
	var r Role
	if err := r.UnmarshalText([]byte("Jester")); err == nil {
		t.Error("unknown role accepted")
	}
	if _, err := Role(99).MarshalText(); err == nil {
		t.Error("invalid role marshalled")
	}
}
