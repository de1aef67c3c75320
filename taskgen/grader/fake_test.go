package grader

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/llm"
)

// scriptedModel is a judge model whose replies come from a function of the
// call number (0-based) and the request. It records every request and the
// most requests it saw in flight at once.
type scriptedModel struct {
	reply func(ctx context.Context, n int, msgs []agentevolver.Message) (string, error)

	mu       sync.Mutex
	requests [][]agentevolver.Message
	opts     []llm.ChatOptions

	calls       atomic.Int32
	inFlight    atomic.Int32
	maxInFlight atomic.Int32
}

func (m *scriptedModel) Chat(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	n := int(m.calls.Add(1)) - 1
	cur := m.inFlight.Add(1)
	defer m.inFlight.Add(-1)
	for {
		old := m.maxInFlight.Load()
		if cur <= old || m.maxInFlight.CompareAndSwap(old, cur) {
			break
		}
	}
	m.mu.Lock()
	m.requests = append(m.requests, msgs)
	m.opts = append(m.opts, opts)
	m.mu.Unlock()
	content, err := m.reply(ctx, n, msgs)
	if err != nil {
		return llm.Completion{}, err
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: content}, FinishReason: "stop"}, nil
}

// request returns the i-th request recorded.
func (m *scriptedModel) request(i int) []agentevolver.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[i]
}

// replying returns a model that always answers reply.
func replying(reply string) *scriptedModel {
	return &scriptedModel{reply: func(context.Context, int, []agentevolver.Message) (string, error) { return reply, nil }}
}

// scoreEnv is an environment whose only working method is Evaluate.
type scoreEnv struct {
	envclient.Env
	score  float64
	params map[string]any
}

func (e *scoreEnv) Evaluate(_ context.Context, _ string, params map[string]any) (float64, error) {
	e.params = params
	return e.score, nil
}

// testQuery, testGroundTruth and testSteps make a small episode.
const (
	testQuery       = "Send Alice the total of my last three orders."
	testGroundTruth = "1. orders.list(limit=3)\n2. sum the totals\n3. messages.send(to=alice, ...)"
)

func testSteps() []agentevolver.Message {
	return []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You are an agent in a shop."},
		{Role: agentevolver.RoleUser, Content: testQuery},
		{Role: agentevolver.RoleAssistant, Content: "orders.list(limit=3)"},
		{Role: agentevolver.RoleUser, Content: "[12.5, 7.5, 30]"},
		{Role: agentevolver.RoleAssistant, Content: "messages.send(to='alice', text='50')"},
		{Role: agentevolver.RoleUser, Content: "sent"},
	}
}

// episode is a RewardInput for the small episode under evaluator.
func episode(evaluator, groundTruth string) agentflow.RewardInput {
	return agentflow.RewardInput{
		Task:       agentevolver.Task{TaskID: "t1", Query: testQuery, GroundTruth: groundTruth, Evaluator: evaluator},
		Trajectory: agentevolver.Trajectory{TaskID: "t1", Query: testQuery, Steps: testSteps()},
		InstanceID: "inst-1",
	}
}
