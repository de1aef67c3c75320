package arena_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/avalon"
)

// A tournament of four baseline models at 5-player Avalon, recorded on a
// leaderboard file and printed. Random models answer as a pure function of
// the request, so the table is the same on every run.
func Example() {
	dir, _ := os.MkdirTemp("", "arena")
	defer os.RemoveAll(dir)
	lb, err := arena.Open(filepath.Join(dir, "leaderboard.db"), arena.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lb.Close()
	tour := arena.Tournament{
		ID:   "example",
		Game: avalon.ArenaGame{},
		Entrants: []arena.Entrant{
			{Name: "random-a", Model: avalon.Random{Seed: 1}},
			{Name: "random-b", Model: avalon.Random{Seed: 2, FailProb: 1}},
			{Name: "cautious", Model: avalon.Random{Seed: 3, ApproveProb: 0.2, FailProb: -1}},
			{Name: "informed", Model: avalon.Random{Seed: 4, Informed: true}},
		},
		Matches: 100,
		Seed:    7,
	}
	sum, err := tour.Run(context.Background(), lb)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("played %d, skipped %d\n", sum.Played, sum.Skipped)
	standings, _ := lb.Standings()
	_ = arena.Render(os.Stdout, standings, arena.RenderOptions{Roles: []string{"Merlin", "Servant", "Assassin", "Minion"}})
	// Output:
	// played 100, skipped 0
	// #  Model        Elo  Games  Wins  Win%  Merlin  Servant  Assassin  Minion   Avg
	// -------------------------------------------------------------------------------
	// 1  random-b  1528.5    123    64  52.0    38.1     44.9      73.3    52.2  52.1
	// 2  informed  1520.0    121    65  53.7    54.8     43.9      61.9    60.7  55.3
	// 3  cautious  1493.4    128    58  45.3    33.3     37.8      46.9    66.7  46.2
	// 4  random-a  1458.1    128    55  43.0    37.5     41.5      47.1    50.0  44.0
	// -------------------------------------------------------------------------------
	//    Average             500   242  48.4    42.0     42.0      58.0    58.0
	// Games per model: min 121, max 128, balance 0.945
}

// Elo changes of one match: every pair of seats held by different models
// is one game, equal scores a draw.
func ExampleEloDeltas() {
	d := arena.EloDeltas(nil, []arena.RatedSeat{{Model: "A", Score: 1}, {Model: "B", Score: 0}}, 32, 1500)
	fmt.Printf("A %+.0f, B %+.0f\n", d["A"], d["B"])
	// Output: A +16, B -16
}
