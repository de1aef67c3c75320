package envservice_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// groundTruthActions turns a synthesised task's GroundTruth (one command
// line per call) into actions, one tool block each.
func groundTruthActions(gt string) []agentevolver.Message {
	var out []agentevolver.Message
	for _, line := range strings.Split(gt, "\n") {
		out = append(out, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + line + "\n```"})
	}
	return out
}

// TestToolworldHindsightTasks synthesises hindsight tasks with the
// capabilities found through one Manager, writes them to a task file, and
// plays them from that file in "another process": a second toolworld
// behind an env-service Server, reached with envclient over HTTP, which
// knows the tasks by their ids alone. The producer's in-process Manager
// plays them too.
func TestToolworldHindsightTasks(t *testing.T) {
	ctx := t.Context()
	producer, _ := newToolworldManager(t)
	defer producer.Close()
	consumer, _ := newToolworldManager(t)
	defer consumer.Close()
	ts := httptest.NewServer(envservice.NewServer(consumer, envservice.ServerConfig{DefaultEnvType: toolworld.Name}))
	defer ts.Close()
	client, err := envclient.New(envclient.Config{BaseURL: ts.URL, EnvType: toolworld.Name, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}

	env, _ := producer.Environment(toolworld.Name)
	synth, ok := env.(envservice.TaskSynthesizer)
	if !ok {
		t.Fatal("toolworld is not a TaskSynthesizer")
	}
	explorer, ok := env.(envservice.RandomExplorer)
	if !ok {
		t.Fatal("toolworld is not a RandomExplorer")
	}
	expert := env.(envservice.Expert)

	// liveWalk explores taskID over HTTP with the explorer's actions: every
	// one is accepted by the server's instance, which is in the state the
	// explorer replayed.
	liveWalk := func(taskID string, seed int64, n int) []agentevolver.Message {
		init, err := client.Create(ctx, toolworld.Name, taskID, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer client.Release(context.WithoutCancel(ctx), init.InstanceID())
		var walk []agentevolver.Message
		for range n {
			a, err := explorer.RandomAction(ctx, taskID, walk, seed)
			if err != nil {
				t.Fatal(err)
			}
			res, err := client.Step(ctx, init.InstanceID(), a, nil)
			if err != nil {
				t.Fatal(err)
			}
			if obs := res.State[0].Content; strings.HasPrefix(obs, "error:") || res.IsTerminated {
				t.Fatalf("%s: random action %q -> %q", taskID, a.Content, obs)
			}
			walk = append(walk, a)
		}
		return walk
	}
	demo := func(taskID string) []agentevolver.Message {
		actions, err := expert.Demonstrate(ctx, taskID)
		if err != nil {
			t.Fatal(err)
		}
		return actions
	}
	episodes := []struct {
		name, seedID string
		actions      []agentevolver.Message
	}{
		{"expert level 1", "tw-train-0000", demo("tw-train-0000")},
		{"expert level 2", "tw-train-0001", demo("tw-train-0001")},
		{"expert level 3", "tw-train-0002", demo("tw-train-0002")},
		{"random walk", "tw-train-0003", liveWalk("tw-train-0003", 1, 6)},
		{"long random walk", "tw-train-0004", liveWalk("tw-train-0004", 2, 20)},
	}

	// Synthesise and write the task file.
	file := filepath.Join(t.TempDir(), "synthetic.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, ep := range episodes {
		task, err := synth.SynthesizeTask(ctx, ep.seedID, ep.actions)
		if err != nil {
			t.Fatalf("%s: %v", ep.name, err)
		}
		if err := enc.Encode(task); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	// Load it and play every task: the ground truth scores 1 in process and
	// over HTTP, doing nothing scores 0.
	f, err = os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var task agentevolver.Task
		if err := json.Unmarshal(sc.Bytes(), &task); err != nil {
			t.Fatal(err)
		}
		ep := episodes[n]
		n++
		t.Run(ep.name, func(t *testing.T) {
			if task.EnvType != toolworld.Name || task.Evaluator != agentevolver.EvaluatorEnv || !task.OpenQuery ||
				task.Metadata["seed_task_id"] != ep.seedID || task.Metadata["split"] != toolworld.SplitTrain {
				t.Fatalf("task %+v", task)
			}
			gt := groundTruthActions(task.GroundTruth)
			for _, via := range []struct {
				name string
				env  envclient.Env
			}{{"in process", producer}, {"over HTTP", client}} {
				if _, err := playEpisode(ctx, via.env, task.TaskID, gt); err != nil {
					t.Fatalf("%s: %v", via.name, err)
				}
				init, err := via.env.Create(ctx, task.EnvType, task.TaskID, "", map[string]any{"sparse": true})
				if err != nil {
					t.Fatal(err)
				}
				if got := init.State[1].Content; got != task.Query {
					t.Errorf("%s: instruction %q, want the query %q", via.name, got, task.Query)
				}
				res, err := via.env.Step(ctx, init.InstanceID(), groundTruthActions("task.finish")[0], nil)
				if err != nil || !res.IsTerminated || res.Reward != 0 {
					t.Errorf("%s: doing nothing: %+v, %v", via.name, res, err)
				}
				if score, err := via.env.Evaluate(ctx, init.InstanceID(), map[string]any{"sparse": true}); err != nil || score != 0 {
					t.Errorf("%s: doing nothing evaluates to %v, %v", via.name, score, err)
				}
				if _, err := via.env.Release(ctx, init.InstanceID()); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	if err := sc.Err(); err != nil || n != len(episodes) {
		t.Fatalf("read %d tasks, %v", n, err)
	}
	if st := consumer.Stats(); st.Live != 0 {
		t.Errorf("instances left behind: %+v", st)
	}

	// A malformed id is a bad request over HTTP, with the reason (which the
	// server's truncated error detail loses for a very long id).
	for _, id := range []string{
		"hs1:tw-train-0001:files.fly,a",
		"hs1:tw-train-0001:files.write,zz.txt,a;files.write,zz.txt,b",
		"hs1:tw-train-0001:" + strings.Repeat("bank.balance;", 400),
	} {
		_, err := client.Create(ctx, toolworld.Name, id, "", nil)
		if !errors.Is(err, envclient.ErrBadRequest) || len(id) < 100 && !strings.Contains(err.Error(), "bad hindsight task id") {
			t.Errorf("create %.40q: %v", id, err)
		}
	}
	if _, err := synth.SynthesizeTask(ctx, "tw-train-0001", nil); !errors.Is(err, envservice.ErrNothingAchieved) {
		t.Errorf("no actions: %v", err)
	}
}
