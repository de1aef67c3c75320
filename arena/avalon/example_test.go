package avalon_test

import (
	"context"
	"fmt"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/llm"
)

// A seeded 5-player game between baseline models. Any llm.ChatModel can
// take a seat: an OpenAI-compatible endpoint (llm/openai), the in-process
// policy, or these test models.
func Example() {
	seats := make([]llm.ChatModel, 5)
	for i := range seats {
		seats[i] = avalon.Random{Seed: uint64(i)}
	}
	res, err := avalon.Play(context.Background(), avalon.Config{}, 42, seats, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("roles:", res.Roles)
	fmt.Println("quests:", res.QuestResults)
	fmt.Println("good wins:", res.GoodWins, "-", res.Reason)
	// Output:
	// roles: [Servant Assassin Minion Servant Merlin]
	// quests: [true true true]
	// good wins: true - three quests succeeded and Merlin survived
}

// Team lists must be exactly the quest's size, with seats in range;
// numbers in prose are not taken.
func ExampleParseTeam() {
	team, err := avalon.ParseTeam("<think>Player 4 is shady.</think>I propose [3, 0].", 2, 5)
	fmt.Println(team, err)
	_, err = avalon.ParseTeam("For Mission 1 I pick Player 7 and Player 2.", 2, 5)
	fmt.Println(err)
	// Output:
	// [0 3] <nil>
	// avalon: unparsable reply: no list of player ids like [0, 1] found
}

// Votes understand negation and whole words.
func ExampleParseVote() {
	for _, reply := range []string{"Yes, I approve.", "I do not approve this team.", "eyes", "I won't fail it."} {
		v, err := avalon.ParseVote(reply)
		fmt.Printf("%q: %v %v\n", reply, v, err)
	}
	// Output:
	// "Yes, I approve.": true <nil>
	// "I do not approve this team.": false <nil>
	// "eyes": false avalon: unparsable reply: no yes or no found
	// "I won't fail it.": true <nil>
}

// What each role knows at the start.
func ExampleKnowledge() {
	roles := []avalon.Role{avalon.Merlin, avalon.Percival, avalon.Servant, avalon.Morgana, avalon.Assassin, avalon.Mordred, avalon.Servant}
	for seat, r := range roles {
		fmt.Println(r, avalon.Knowledge(roles, seat))
	}
	// Output:
	// Merlin [{3 evil} {4 evil}]
	// Percival [{0 merlin_or_morgana} {3 merlin_or_morgana}]
	// Servant []
	// Morgana [{4 evil} {5 evil}]
	// Assassin [{3 evil} {5 evil}]
	// Mordred [{3 evil} {4 evil}]
	// Servant []
}

// A batch evaluation with models seated by role (the reference's
// run_eval): here a saboteur plays the Assassin and a random model every
// other seat.
func ExampleRoleSeating() {
	b := arena.Batch{
		Game:    avalon.ArenaGame{},
		Matches: 20,
		Seed:    1,
		Seating: avalon.RoleSeating(avalon.Config{},
			map[avalon.Role]arena.Entrant{avalon.Assassin: {Name: "saboteur", Model: avalon.Random{Seed: 9, FailProb: 1}}},
			arena.Entrant{Name: "random", Model: avalon.Random{}}),
	}
	rep, err := b.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, role := range []string{"Merlin", "Servant", "Assassin", "Minion"} {
		s := rep.Roles[role]
		fmt.Printf("%-8s games %2d  win rate %.2f\n", role, s.Games, s.Mean)
	}
	fmt.Printf("saboteur seats: %d\n", rep.Models["saboteur"].Games)
	// Output:
	// Merlin   games 20  win rate 0.15
	// Servant  games 40  win rate 0.15
	// Assassin games 20  win rate 0.85
	// Minion   games 20  win rate 0.85
	// saboteur seats: 20
}
