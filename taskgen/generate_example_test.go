package taskgen_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/taskgen"
)

// Self-questioning without an LLM: the environment's random actions
// explore three seed tasks twice each, its hindsight relabelling turns
// every walk into a task it can verify, and replaying each task's expert
// solution is the post filter. (With a model, use LLMExplorer,
// LLMSummarizer and LLMPostFilter instead.)
func ExampleGenerator_Generate() {
	env, err := toolworld.New(toolworld.Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	if err != nil {
		log.Fatal(err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{})
	defer m.Close()
	if err := m.Register(toolworld.Name, env); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ids, err := m.TaskIDs(ctx, toolworld.Name, toolworld.SplitTrain)
	if err != nil {
		log.Fatal(err)
	}
	var seeds []agentevolver.Task
	for _, id := range ids {
		seeds = append(seeds, agentevolver.Task{TaskID: id, EnvType: toolworld.Name})
	}

	g := &taskgen.Generator{
		Explorer:   &taskgen.RandomWalkExplorer{Env: m, Actions: env, MaxSteps: 2},
		Summarizer: &taskgen.HindsightSummarizer{Synthesizer: env},
		PostFilter: &taskgen.EnvPostFilter{Env: m, Expert: env},
		N:          2,
	}
	objs, rep, err := g.Generate(ctx, seeds)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("explored %d, objectives %d, after the realtime filter %d, after the post filter %d\n",
		rep.Explored, rep.Objectives, rep.AfterRealtime, rep.AfterPostFilter)
	for _, o := range objs[:2] {
		fmt.Printf("%s (%s)\n  %s\n", o.Task.Query, o.Task.Metadata["seed_task_id"], strings.ReplaceAll(o.Task.GroundTruth, "\n", "\n  "))
	}
	// Output:
	// explored 6, objectives 6, after the realtime filter 6, after the post filter 6
	// Pay Finn 60 dollars. Add contact Cleo with phone 555-4100. (tw-train-0000)
	//   bank.pay to=Finn amount=60
	//   contacts.add name=Cleo phone=555-4100
	//   task.finish
	// Add contact Ines with phone 555-8426. (tw-train-0001)
	//   contacts.add name=Ines phone=555-8426
	//   task.finish
}
