package objective_test

import (
	"fmt"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/objective"
)

// GRPO advantages of two tasks with three rollouts each: the outcome
// reward sits on the last response token, advantages are normalised within
// each task's group and spread over the loss mask.
func ExampleComputeGRPOAdvantages() {
	backend, err := model.NewBackend("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	rewards := [][]float32{
		{0, 0, 1}, {0, 0, 0}, {0, 0, 1}, // task a: two of three solved
		{0, 0.5, 0}, {0, 0, 0.25}, {0, 0, 0}, // task b: partial credit
	}
	mask := [][]float32{
		{1, 1, 1}, {1, 1, 0}, {1, 1, 1},
		{1, 1, 0}, {1, 1, 1}, {1, 1, 1},
	}
	groups, n := objective.GroupIndex([]string{"a", "a", "a", "b", "b", "b"})
	adv, err := objective.ComputeGRPOAdvantages(backend, rewards, mask, groups, n, objective.GRPOConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range adv {
		fmt.Printf("%6.3f\n", row)
	}
	// Output:
	// [ 0.577  0.577  0.577]
	// [-1.155 -1.155 -0.000]
	// [ 0.577  0.577  0.577]
	// [ 1.000  1.000  0.000]
	// [ 0.000  0.000  0.000]
	// [-1.000 -1.000 -1.000]
}

// Aggregation modes of one loss matrix, as the reference's agg_loss.
func ExampleComputeAggregateLoss() {
	backend, err := model.NewBackend("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	loss := [][]float32{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}
	mask := [][]float32{{1, 1, 1, 0, 0}, {1, 1, 1, 1, 0}}
	for _, mode := range []objective.AggMode{objective.TokenMean, objective.SeqMeanTokenSum, objective.SeqMeanTokenMean, objective.SeqMeanTokenSumNorm} {
		v, err := objective.ComputeAggregateLoss(backend, loss, mask, mode)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-24s %.4f\n", mode, v)
	}
	_, err = objective.ComputeAggregateLoss(backend, loss, mask, "token-sum")
	fmt.Println(err)
	// Output:
	// token-mean               4.1429
	// seq-mean-token-sum       14.5000
	// seq-mean-token-mean      3.7500
	// seq-mean-token-sum-norm  5.8000
	// objective: unknown loss aggregation mode: "token-sum" (want token-mean, seq-mean-token-sum, seq-mean-token-mean or seq-mean-token-sum-norm)
}
