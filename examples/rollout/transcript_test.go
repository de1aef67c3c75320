package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envclient"
)

func TestTranscript(t *testing.T) {
	sys := agentevolver.Message{Role: agentevolver.RoleSystem, Content: "line one\nline two\nline three"}
	task := agentevolver.Message{Role: agentevolver.RoleUser, Content: "do it"}
	act := func(s string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s}
	}
	obs := func(s string) envclient.StepResult {
		return envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleUser, Content: s}}}
	}
	result := func(tr agentevolver.Trajectory) agentflow.Result {
		tr.TaskID, tr.RolloutID = "t1", "0"
		return agentflow.Result{Trajectory: tr}
	}
	for _, tc := range []struct {
		name       string
		ep         episode
		showSystem bool
		want       []string
	}{
		{
			name: "environment error",
			ep: episode{
				res:      result(agentevolver.Trajectory{Error: "env step 1: unavailable"}),
				exchange: &exchange{initial: []agentevolver.Message{sys, task}, turns: []turn{{action: act("a"), result: obs("ok")}, {action: act("b"), err: errors.New("unavailable")}}},
			},
			want: []string{"[system]\n  line one\n  (2 more lines; --show-system prints them)\n[user]\n  do it\n",
				"[assistant, turn 2]\n  b\n[environment error]\n  unavailable\n[error]\n  env step 1: unavailable\n",
				"--- score 0.00 (no success), 2 turns, environment error\n"},
		},
		{
			name:       "context full, system shown, tool calls and tool observations",
			showSystem: true,
			ep: episode{
				res: result(agentevolver.Trajectory{Reward: agentevolver.NewReward(0.5, "", -1)}),
				exchange: &exchange{initial: []agentevolver.Message{sys, task}, turns: []turn{{
					action: agentevolver.Message{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{{Function: agentevolver.FunctionCall{Name: "bank_balance", Arguments: "{}"}}}},
					result: envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleTool, Content: "balance 5"}}},
				}}},
			},
			want: []string{"[system]\n  line one\n  line two\n  line three\n",
				"[assistant, turn 1]\n  call bank_balance {}\n[environment, tool]\n  balance 5\n",
				"--- score 0.50 (no success), 1 turns, context full, degenerate output"},
		},
		{
			name: "no recording: the trajectory",
			ep: episode{res: result(agentevolver.Trajectory{
				IsTerminated: true, Reward: agentevolver.NewReward(1, "", 0),
				Steps: []agentevolver.Message{task, act("done"), {Role: agentevolver.RoleUser}},
			})},
			want: []string{"[user]\n  do it\n[assistant]\n  done\n[user]\n  (empty)\n", "--- score 1.00 (success), 1 turns, finished\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &printer{w: &b, width: 60, showSystem: tc.showSystem, maxSteps: 5}
			p.transcript(1, 1, tc.ep)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("transcript lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}
