package avalon_test

import (
	"context"
	"fmt"

	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/llm"
)

// One training episode of a seat, driven by hand: the environment shows
// the seat's requests, the caller answers them (here with the informed
// baseline standing in for the policy), and the game's outcome for the
// seat's side is the score.
func ExampleEnv() {
	ctx := context.Background()
	env, err := avalon.NewEnv(avalon.EnvConfig{Seat: "2", Opponents: []string{avalon.OpponentRandom}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ids, err := env.TaskIDs(ctx, avalon.SplitTrain, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ids[0])
	inst, err := env.New(ctx, ids[0], "example", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	q, _ := avalon.ReadQuestion(init.State)
	fmt.Printf("first question: %s to Player %d\n", q.Action, q.Seat)
	policy := avalon.Random{Informed: true}
	state := init.State
	for call := 0; ; call++ {
		seed := int64(call)
		reply, err := policy.Chat(ctx, state, llm.ChatOptions{Seed: &seed})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := inst.Step(ctx, reply.Message, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		if res.IsTerminated {
			fmt.Println(res.State[0].Content)
			break
		}
		state = res.State
	}
	score, _ := inst.Evaluate(ctx, nil)
	fmt.Println("score:", score)
	// Output:
	// seed=1286077599853695349,players=5,seat=2,opponents=random
	// first question: discuss to Player 2
	// Game over: Evil wins (three quests failed). Your side (Evil) won.
	// score: 1
}
