package textgame_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/textgame"
)

// An episode of the first training task: enter the building. The example
// needs the game (Debian package open-adventure), so it is compiled but not
// run; TestEpisodes and TestExpertReachesEveryGoal check the same.
func ExampleNew() {
	env, err := textgame.New(textgame.Config{})
	if errors.Is(err, textgame.ErrNoBinary) {
		log.Fatal(err) // the message names the package to install
	}
	ctx := context.Background()
	in, err := env.New(ctx, "advent-train-0000", "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer in.Close() // kills the game's process group
	init, _ := in.InitState(ctx, nil)
	fmt.Println(init.State[1].Content)
	res, err := in.Step(ctx, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "enter building"}, nil)
	if err != nil {
		log.Fatal(err) // an environment failure: the game crashed or hung
	}
	fmt.Println(res.State[0].Content)
	fmt.Println("reward", res.Reward, "done", res.IsTerminated)
	// Would print:
	// Goal: Enter the small brick building.
	//
	// You are standing at the end of a road before a small brick building.
	// ...
	// You are inside a building, a well house for a large spring.
	// ...
	// reward 1 done true
}

// SanitizeAction turns a message into the one line the game reads, or
// explains why it cannot.
func ExampleSanitizeAction() {
	for _, s := range []string{"  take   lamp\n", "`xyzzy`", "n\ns", ""} {
		cmd, err := textgame.SanitizeAction(s)
		fmt.Printf("%q %v\n", cmd, err)
	}
	// Output:
	// "take lamp" <nil>
	// "xyzzy" <nil>
	// "" textgame: bad action: several lines; send exactly one command per action
	// "" textgame: bad action: empty command; send one line such as "go north" or "take lamp"
}
