package cues_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/taskgen/cues"
)

func ExampleParseTasks() {
	reply := "<task>\nDescription: List files\nQuery: Which files do I have?\nConfidence: 0.9\nActionSequence:\n# step1\n```tool\nfiles.list\n```\n</task>"
	tasks, report := cues.ParseTasks(reply)
	fmt.Println(report.Blocks, tasks[0].Query, tasks[0].Confidence)
	fmt.Println(tasks[0].GT)
	// Output:
	// 1 Which files do I have? 0.9
	// # step1
	// ```tool
	// files.list
	// ```
}

// ExamplePipeline runs CuES on toolworld in process with a model that
// always explores by writing a file, abstracts that as a task and
// re-executes it; the environment checks the re-execution itself.
func ExamplePipeline() {
	ctx := context.Background()
	env, _ := builtin.Open(ctx, toolworld.Name, builtin.Config{Toolworld: toolworld.Config{TrainSize: 1}}, nil)
	m := envservice.NewManager(envservice.ManagerConfig{})
	defer m.Close()
	m.Register(toolworld.Name, env)

	write := "<action>\n```tool\nfiles.write name=notes.txt text=hi\n```\n</action>"
	finish := "<action>\n```tool\ntask.finish\n```\n</action>"
	model := llm.ChatModelFunc(func(_ context.Context, msgs []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		prompt := msgs[len(msgs)-1].Content
		reply := "OK"
		switch {
		case strings.Contains(msgs[0].Content, "curious explorer"):
			reply = write
		case strings.Contains(msgs[0].Content, "Task Abstraction Expert"):
			reply = "<task>\nDescription: Notes\nQuery: Write hi to notes.txt\nConfidence: 1\nActionSequence:\n" +
				"```tool\nfiles.write name=notes.txt text=hi\n```\n```tool\ntask.finish\n```\n</task>"
		case strings.Contains(prompt, "completes a user's task") && strings.Contains(prompt, "## Previous Actions\nNone"):
			reply = write
		case strings.Contains(prompt, "completes a user's task"):
			reply = finish
		case strings.Contains(prompt, "strict evaluator"):
			reply = "Success: true"
		}
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: reply}}, nil
	})
	dir, _ := os.MkdirTemp("", "cues-example")
	defer os.RemoveAll(dir)
	store, _ := cues.OpenStore(dir)
	p := &cues.Pipeline{Env: m, Model: model, Store: store, Config: cues.Config{
		EnvType: toolworld.Name, Session: "example", Workers: 1,
		Stage1: cues.Stage1Config{RolloutNum: 1, MaxSteps: 2, MemoryTriplets: -1},
	}}
	stats, err := p.Run(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("triplets:", stats.Stage1.Triplets, "tasks:", stats.Stage2.Kept, "accepted:", stats.Stage3.Accepted, "exported:", stats.Exported)
	// Output:
	// triplets: 2 tasks: 1 accepted: 1 exported: 1
}
