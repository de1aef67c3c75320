package attribution_test

import (
	"context"
	"fmt"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // the pure-Go backend

	"github.com/org/agentevolver/attribution"
)

// The worked example of the reference (§7.6): two tasks with two rollouts
// each, judged step by step, with the default decouple scheme (alpha 0.1,
// fix_base 0.2, the outcome on the last step).
func ExampleComputeADCA() {
	backend, err := backends.NewWithConfig("go:ops_sequential")
	if err != nil {
		panic(err)
	}
	defer backend.Finalize()
	batch := attribution.ADCABatch{
		// The step of each response token; -1 for tokens of no step.
		StepIDs: [][]int{
			{0, 0, -1, 1, 1, -1, 2, 2},
			{0, 0, 0, -1, 1, 1, -1, -1},
			{0, -1, 1, -1, 2, 2, 2, -1},
			{0, 0, 0, 0, -1, -1, -1, -1},
		},
		Groups: []int{0, 0, 1, 1}, // rows 0-1 are one task, rows 2-3 another
		TokenLevelRewards: [][]float32{
			{0, 0, 0, 0, 0, 0, 0, 1}, // success
			{0, 0, 0, 0, 0, 0, 0, 0},
			{0, 0, 0, 0, 0, 0, 1, 0}, // success
			{0, 0, 0, 0, 0, 0, 0, 0},
		},
		// The judge's GOOD (true) / BAD labels per step.
		Flags: [][]bool{{true, false, true}, {false, false}, {true, true, false}, {true}},
	}
	res, err := attribution.ComputeADCA(context.Background(), backend, attribution.ADCAConfig{}, 0, batch)
	if err != nil {
		panic(err)
	}
	for i, steps := range res.StepAdvantages {
		fmt.Printf("trajectory %d: step advantages %.4f\n", i, steps)
	}
	fmt.Printf("tokens of trajectory 0: %.4f\n", res.Advantages[0])
	fmt.Printf("sign agreement %.2f, alpha effective %.4f\n",
		res.Metrics["prm/decouple/sum_step_reward_sign_agree"], res.Metrics["prm/decouple/alpha_effective"])
	// Output:
	// trajectory 0: step advantages [1.2121 1.0707 1.1414]
	// trajectory 1: step advantages [-1.1414 -1.0707]
	// trajectory 2: step advantages [0.8658 0.8211 0.7764]
	// trajectory 3: step advantages [-0.9553]
	// tokens of trajectory 0: [1.2121 1.2121 0.0000 1.0707 1.0707 0.0000 1.1414 1.1414]
	// sign agreement 1.00, alpha effective 0.2132
}
