package trainer_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/trainer"
)

// firstTwoMixture is a user's task mixture: every epoch trains on the
// first two original tasks only, whatever the configuration's mixture.
type firstTwoMixture struct{ epochs *atomic.Int32 }

func (m firstTwoMixture) Mix(_, original []agentevolver.Task) ([]agentevolver.Task, error) {
	m.epochs.Add(1)
	return append([]agentevolver.Task(nil), original[:2]...), nil
}

func (firstTwoMixture) NeedSynthetic() bool { return false }

// recordingContext is a user's context manager: the linear one, recording
// the task of every episode it serves.
type recordingContext struct {
	contextmgr.ContextManager
	tasks *sync.Map
}

func (c recordingContext) Init(msgs []agentevolver.Message) error {
	c.tasks.Store(msgs[len(msgs)-1].Content, true)
	return c.ContextManager.Init(msgs)
}

// A user's own context manager and task mixture, handed to the trainer as
// its environment is: Options.NewContext builds every episode's context
// manager from the configuration the named strategy would get, and
// Options.Mixture chooses each epoch's tasks.
func ExampleOptions_contextAndMixture() {
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
		"trainer.output_dir=" + dir, "trainer.rl_steps=2", "trainer.test_freq=0",
		"warm_start.steps=0", "model.tokenizer=byte",
		"data.train_batch_size=2", "rollout.n=2", "rollout.max_steps=1", "rollout.response_length=8", "rollout.concurrency=1",
		"model.shape.hidden_size=16", "model.shape.num_layers=1", "model.shape.num_heads=2",
		"model.shape.num_kv_heads=1", "model.shape.intermediate_size=32",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var tasks sync.Map
	var epochs atomic.Int32
	t, err := trainer.New(cfg, trainer.Options{
		Env: m,
		NewContext: func(c contextmgr.Config) (contextmgr.ContextManager, error) {
			cm, err := contextmgr.NewLinear(c)
			if err != nil {
				return nil, err
			}
			return recordingContext{ContextManager: cm, tasks: &tasks}, nil
		},
		Mixture: firstTwoMixture{epochs: &epochs},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := t.Fit(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	// Training ran the mixture's two tasks of six (Ada, Alan), validation
	// the two validation tasks (Frances, Ken); the first epoch was mixed
	// at setup, the second for the second step.
	var seen []string
	tasks.Range(func(k, _ any) bool { seen = append(seen, k.(string)); return true })
	sort.Strings(seen)
	fmt.Println("episodes' tasks:", strings.Join(seen, " "))
	fmt.Println("epochs mixed:", epochs.Load())
	// Output:
	// episodes' tasks: Greet Ada. Greet Alan. Greet Frances. Greet Ken.
	// epochs mixed: 2
}
