package main

import (
	"context"
	"slices"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// recorder is an envclient.Env that passes every call on to an inner Env and
// keeps, per instance, what the agent and the environment said to each
// other. The transcript is printed from it because the trajectory leaves out
// the final observation (no policy turn answers it) and shows what the
// context manager made of each message rather than what was exchanged.
type recorder struct {
	envclient.Env

	mu        sync.Mutex
	exchanges map[string]*exchange // by instance id; one exchange may have two ids
}

// exchange is one episode as the environment saw it.
type exchange struct {
	ids     []string
	initial []agentevolver.Message
	turns   []turn
}

// turn is one action and the environment's answer to it.
type turn struct {
	action agentevolver.Message
	result envclient.StepResult
	err    error // the step failed; result is empty
}

func newRecorder(env envclient.Env) *recorder {
	return &recorder{Env: env, exchanges: map[string]*exchange{}}
}

// Create implements envclient.Env.
func (r *recorder) Create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (envclient.InitState, error) {
	init, err := r.Env.Create(ctx, envType, taskID, instanceID, params)
	if err != nil {
		return init, err
	}
	x := &exchange{initial: slices.Clone(init.State)}
	for _, id := range []string{instanceID, init.InstanceID()} {
		if id != "" && !slices.Contains(x.ids, id) {
			x.ids = append(x.ids, id)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range x.ids {
		r.exchanges[id] = x
	}
	return init, nil
}

// Step implements envclient.Env.
func (r *recorder) Step(ctx context.Context, instanceID string, action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	res, err := r.Env.Step(ctx, instanceID, action, params)
	r.mu.Lock()
	defer r.mu.Unlock()
	if x := r.exchanges[instanceID]; x != nil {
		t := turn{action: action, err: err}
		if err == nil {
			t.result = res
			t.result.State = slices.Clone(res.State)
		}
		x.turns = append(x.turns, t)
	}
	return res, err
}

// take returns the exchange of an instance and forgets it; nil when there
// is none.
func (r *recorder) take(instanceID string) *exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := r.exchanges[instanceID]
	if x != nil {
		for _, id := range x.ids {
			delete(r.exchanges, id)
		}
	}
	return x
}

// forgetAll drops every exchange not yet taken (of episodes that failed).
func (r *recorder) forgetAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.exchanges)
}
