package agentflow_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// expert plays toolworld's expert solutions: it recognises the task by its
// instruction and plays the next action of its solution.
type expert struct {
	tok       tokenizer.Tokenizer
	eos       int
	solutions map[string][]agentevolver.Message // instruction -> actions
}

func (x *expert) Chat(_ context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	turn := 0
	for _, m := range msgs {
		if m.Role == agentevolver.RoleAssistant {
			turn++
		}
	}
	var actions []agentevolver.Message
	for instr, sol := range x.solutions {
		if strings.Contains(msgs[1].Content, instr) {
			actions = sol
		}
	}
	if turn >= len(actions) {
		return llm.Completion{}, fmt.Errorf("expert: no action %d for %q", turn, msgs[1].Content)
	}
	text := actions[turn].Content
	c := llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}}
	if opts.LogProbs {
		c.TokenIDs = append(x.tok.Encode(text), x.eos)
		c.LogProbs = make([]float64, len(c.TokenIDs))
	}
	return c, nil
}

// TestToolworldWithByteLevelTokenizer runs expert episodes of the built-in
// toolworld environment, served in process by envservice.Manager, with the
// byte-level tokenizer and both Qwen chat
// templates, and checks that the samples train on exactly the expert's
// actions and segment into one step per action.
func TestToolworldWithByteLevelTokenizer(t *testing.T) {
	ctx := context.Background()
	world, err := toolworld.New(toolworld.Config{Compact: true, TrainSize: 6, ValSize: 1, TestSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := world.TaskIDs(ctx, toolworld.SplitTrain, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eos, _ := tok.TokenID(tokenizer.IMEnd)
	pol := &expert{tok: tok, eos: eos, solutions: map[string][]agentevolver.Message{}}
	var tasks []agentevolver.Task
	for _, id := range ids {
		info, err := world.Task(id)
		if err != nil {
			t.Fatal(err)
		}
		if pol.solutions[info.Instruction], err = world.Solve(id); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, agentevolver.Task{TaskID: id, EnvType: toolworld.Name})
	}

	for _, tc := range []struct {
		name string
		tpl  tokenizer.ChatTemplate
	}{{"qwen2.5", tokenizer.Qwen25ChatML()}, {"qwen3", tokenizer.Qwen3ChatML()}} {
		t.Run(tc.name, func(t *testing.T) {
			env := envservice.NewManager(envservice.ManagerConfig{})
			defer env.Close()
			if err := env.Register(toolworld.Name, world); err != nil {
				t.Fatal(err)
			}
			runner := &agentflow.Runner{
				Flow: &agentflow.Flow{
					Env:     env,
					Policy:  pol,
					Context: contextmgr.Config{Tokenizer: tok, Template: tc.tpl},
					Sparse:  true,
				},
				Concurrency: 3,
			}
			results, err := runner.Run(ctx, agentflow.Expand(tasks, 2))
			if err != nil {
				t.Fatal(err)
			}
			if len(results) != 2*len(tasks) {
				t.Fatalf("%d results", len(results))
			}
			aHdr, uHdr, err := contextmgr.StepHeaders(tok, tc.tpl, tokenizer.TemplateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range results {
				traj := res.Trajectory
				actions := pol.solutions[traj.Query]
				if traj.Reward.Outcome != 1 || !traj.IsTerminated || traj.Error != "" {
					t.Errorf("%s: outcome %v, terminated %v, error %q", traj.TaskID, traj.Reward.Outcome, traj.IsTerminated, traj.Error)
				}
				if len(res.Samples) != 1 {
					t.Fatalf("%s: %d samples", traj.TaskID, len(res.Samples))
				}
				s := res.Samples[0]
				var trainedIDs, want []int
				for i, id := range s.ResponseIDs {
					if s.ResponseLossMask[i] == 1 {
						trainedIDs = append(trainedIDs, id)
					}
				}
				for _, a := range actions {
					want = append(append(want, tok.Encode(a.Content)...), eos)
				}
				if fmt.Sprint(trainedIDs) != fmt.Sprint(want) {
					got, _ := tok.Decode(trainedIDs)
					t.Errorf("%s: trained on %q", traj.TaskID, got)
				}
				p := contextmgr.ParseResponseSteps(s.ResponseIDs, contextmgr.StepOptions{
					AssistantHeader: aHdr, UserHeader: uHdr,
					Decode: func(ids []int) string { s, _ := tok.Decode(ids); return s },
				})
				if len(p.Steps) != len(actions) {
					t.Fatalf("%s: %d steps for %d actions", traj.TaskID, len(p.Steps), len(actions))
				}
				for i, st := range p.Steps {
					if want := actions[i].Content + tokenizer.IMEnd + "\n"; st.ActionText != want {
						t.Errorf("%s step %d: action %q, want %q", traj.TaskID, i, st.ActionText, want)
					}
				}
			}
			if st := env.Stats(); st.Live != 0 || st.Released != uint64(len(results)) {
				t.Errorf("manager stats %+v after %d episodes", st, len(results))
			}
		})
	}
}
