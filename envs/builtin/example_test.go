package builtin_test

import (
	"context"
	"fmt"
	"log"

	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// Open a built-in environment from the env section of a configuration and
// use one of its optional capabilities.
func Example() {
	ctx := context.Background()
	fmt.Println("built in:", builtin.Names())

	cfg := builtin.Config{Toolworld: toolworld.Config{TrainSize: 6, MaxLevel: 1}}
	env, err := builtin.Open(ctx, "toolworld", cfg, nil)
	if err != nil {
		log.Fatal(err)
	}
	ids, err := env.TaskIDs(ctx, "train", nil)
	if err != nil {
		log.Fatal(err)
	}
	if meta, ok := env.(envservice.TaskMetadataProvider); ok {
		for _, id := range ids {
			md, err := meta.TaskMetadata(ctx, id)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(id, "difficulty", md.Difficulty)
		}
	}

	_, err = builtin.Open(ctx, "appworld", cfg, nil)
	fmt.Println(err)
	// Output:
	// built in: [avalon diplomacy mcp sqlworld textgame toolworld]
	// tw-train-0000 difficulty 1
	// tw-train-0003 difficulty 1
	// builtin: unknown environment "appworld" (built in: avalon, diplomacy, mcp, sqlworld, textgame, toolworld)
}
