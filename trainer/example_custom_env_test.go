package trainer_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/trainer"
)

// greetEnv is a custom environment: the agent must greet a person by
// name, and scores 1 when its reply contains the name. TaskIDs and New are
// all an environment needs (envservice.Environment).
type greetEnv struct{}

var names = []string{"Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken"}

func (greetEnv) TaskIDs(_ context.Context, split string, _ map[string]any) ([]string, error) {
	switch split {
	case "train":
		return names[:6], nil
	case "val":
		return names[6:], nil
	}
	return nil, fmt.Errorf("%w: no split %q", envclient.ErrBadRequest, split)
}

func (greetEnv) New(_ context.Context, taskID, _ string, _ map[string]any) (envservice.Instance, error) {
	return &greeting{name: taskID}, nil
}

// greeting is one episode: one turn, scored on the reply.
type greeting struct{ name, reply string }

func (g *greeting) InitState(context.Context, map[string]any) (envclient.InitState, error) {
	return envclient.InitState{State: []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "Greet the person."},
		{Role: agentevolver.RoleUser, Content: "Greet " + g.name + "."},
	}}, nil
}

func (g *greeting) Step(_ context.Context, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	g.reply = action.Content
	return envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Thanks."}}, IsTerminated: true}, nil
}

func (g *greeting) Evaluate(context.Context, map[string]any) (float64, error) {
	if strings.Contains(g.reply, g.name) {
		return 1, nil
	}
	return 0, nil
}

func (g *greeting) Info(context.Context, map[string]any) (any, error) { return map[string]any{}, nil }
func (g *greeting) Close() error                                      { return nil }

// Training your own environment through the public API: serve it in
// process with an envservice.Manager, start from the defaults, switch off
// what needs capabilities greetEnv lacks (an expert for the warm start, a
// corpus for a learned tokenizer), and let Ctrl-C stop the run cleanly:
// an interrupted Fit still leaves a checkpoint, the policy and the plot.
func ExampleTrainer_Fit_customEnvironment() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	m := envservice.NewManager(envservice.ManagerConfig{})
	defer m.Close()
	if err := m.Register("greet", greetEnv{}); err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "greet")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	cfg, err := trainer.LoadConfigOver(trainer.FromScratchConfig(), nil, []string{
		"trainer.output_dir=" + dir,
		"trainer.rl_steps=2",
		"trainer.test_freq=0",
		"warm_start.steps=0",   // greetEnv has no expert (envservice.Expert)
		"model.tokenizer=byte", // nor a corpus to learn a tokenizer from
		"data.train_batch_size=2",
		"rollout.n=2",
		"rollout.max_steps=1",
		"rollout.response_length=8",
		"rollout.concurrency=1",
		"model.shape.hidden_size=16", "model.shape.num_layers=1", "model.shape.num_heads=2",
		"model.shape.num_kv_heads=1", "model.shape.intermediate_size=32",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := trainer.New(cfg, trainer.Options{Env: m}) // env.type "greet" is inferred
	if err != nil {
		fmt.Println(err)
		return
	}
	summary, err := t.Fit(ctx)
	if errors.Is(err, context.Canceled) {
		fmt.Println("interrupted; resume with trainer.Options{Resume: true}")
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("env type:", t.Config().Env.Type)
	fmt.Println("RL steps:", summary.RLSteps)
	for _, name := range []string{trainer.FinalModelDir, trainer.PlotFile, trainer.SummaryFile, trainer.MetricsFile} {
		_, err := os.Stat(filepath.Join(dir, name))
		fmt.Printf("%s: %v\n", name, err == nil)
	}
	// Output:
	// env type: greet
	// RL steps: 2
	// final: true
	// progress.png: true
	// summary.json: true
	// metrics.jsonl: true
}
