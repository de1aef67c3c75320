package agentflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// charTokenizer: ChatML markers are single ids, every other code point is
// 256 + its value.
type charTokenizer struct{}

var specialTokens = []string{"<|im_start|>", "<|im_end|>"}

const imEndID = 2

func (charTokenizer) Encode(text string) []int {
	var ids []int
outer:
	for len(text) > 0 {
		for i, sp := range specialTokens {
			if strings.HasPrefix(text, sp) {
				ids = append(ids, i+1)
				text = text[len(sp):]
				continue outer
			}
		}
		r, size := utf8.DecodeRuneInString(text)
		ids = append(ids, 256+int(r))
		text = text[size:]
	}
	return ids
}

func (charTokenizer) Decode(ids []int) (string, error) {
	var b strings.Builder
	for _, id := range ids {
		switch {
		case id >= 1 && id <= len(specialTokens):
			b.WriteString(specialTokens[id-1])
		case id >= 256 && id < 256+0x110000:
			b.WriteRune(rune(id - 256))
		default:
			return "", fmt.Errorf("%w: %d", tokenizer.ErrUnknownID, id)
		}
	}
	return b.String(), nil
}

func (charTokenizer) VocabSize() int { return 256 + 0x110000 }

func (charTokenizer) TokenID(token string) (int, bool) {
	for i, sp := range specialTokens {
		if sp == token {
			return i + 1, true
		}
	}
	return 0, false
}

type chatML struct{}

func (chatML) Apply(msgs []agentevolver.Message, opts tokenizer.TemplateOptions) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
	}
	if opts.AddGenerationPrompt {
		b.WriteString("<|im_start|>assistant\n")
	}
	return b.String(), nil
}

func decode(ids []int) string {
	s, err := charTokenizer{}.Decode(ids)
	if err != nil {
		panic(err)
	}
	return s
}

// policyFunc is a ChatModel made of a function.
type policyFunc func(ctx context.Context, msgs []agentevolver.Message) (string, error)

// Chat replies with the function's text, reporting its token ids and
// log-probabilities when asked to, as a sampling policy does.
func (p policyFunc) Chat(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	text, err := p(ctx, msgs)
	if err != nil {
		return llm.Completion{}, err
	}
	if !opts.LogProbs {
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}}, nil
	}
	ids := append(charTokenizer{}.Encode(text), imEndID)
	lps := make([]float64, len(ids))
	for i := range lps {
		lps[i] = -0.5
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}, TokenIDs: ids, LogProbs: lps}, nil
}

// alwaysInc is a policy that always plays "inc".
var alwaysInc = policyFunc(func(context.Context, []agentevolver.Message) (string, error) { return "inc", nil })

// counterEnv is an in-memory envclient.Env: a counter the agent raises
// with "inc"; the episode ends when it reaches the goal.
type counterEnv struct {
	goal int
	// Faults.
	initState   []agentevolver.Message // nil: [system, user]
	failCreates map[string]int         // task id -> creates to fail
	stepErrAt   int                    // fail this step (1-based) of every instance
	stepPanicAt int                    // panic at this step (1-based) of every instance
	evalErr     error                  // Evaluate fails with it
	evalScore   *float64               // Evaluate returns it
	toolObs     bool                   // observe through tool messages
	blockSteps  bool                   // Step waits for cancellation
	stepDelay   time.Duration
	stepStarted chan struct{} // receives once per blocked step

	mu        sync.Mutex
	instances map[string]*counter
	creates   int
	releases  int
	live      int
	maxLive   int
	actions   []string
}

type counter struct {
	task  string
	count int
	steps int
}

func newCounterEnv(goal int) *counterEnv {
	return &counterEnv{goal: goal, instances: map[string]*counter{}, failCreates: map[string]int{}}
}

func (e *counterEnv) TaskIDs(context.Context, string, string) ([]string, error) {
	return []string{"t0", "t1"}, nil
}

func (e *counterEnv) Create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (envclient.InitState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.creates++
	if e.failCreates[taskID] > 0 {
		e.failCreates[taskID]--
		return envclient.InitState{}, fmt.Errorf("create %s: %w", taskID, envclient.ErrUnavailable)
	}
	if _, dup := e.instances[instanceID]; dup || instanceID == "" {
		return envclient.InitState{}, envclient.ErrBadRequest
	}
	if envType != "counter" || params["is_open_query"] != false {
		return envclient.InitState{}, fmt.Errorf("%w: env type %q params %v", envclient.ErrBadRequest, envType, params)
	}
	e.instances[instanceID] = &counter{task: taskID}
	e.live++
	e.maxLive = max(e.maxLive, e.live)
	state := e.initState
	if state == nil {
		state = []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: "You control a counter."},
			{Role: agentevolver.RoleUser, Content: "Raise the counter to " + strconv.Itoa(e.goal) + "."},
		}
	}
	return envclient.InitState{State: state, Info: map[string]any{"instance_id": instanceID}}, nil
}

func (e *counterEnv) Step(ctx context.Context, instanceID string, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	if e.blockSteps {
		e.stepStarted <- struct{}{}
		<-ctx.Done()
		return envclient.StepResult{}, ctx.Err()
	}
	if e.stepDelay > 0 {
		time.Sleep(e.stepDelay)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.instances[instanceID]
	if !ok {
		return envclient.StepResult{}, envclient.ErrInstanceNotFound
	}
	c.steps++
	e.actions = append(e.actions, action.Content)
	if c.steps == e.stepErrAt {
		return envclient.StepResult{}, fmt.Errorf("counter crashed: %w", envclient.ErrUnavailable)
	}
	if c.steps == e.stepPanicAt {
		panic("counter overflow")
	}
	if action.Role != agentevolver.RoleAssistant {
		return envclient.StepResult{}, envclient.ErrBadRequest
	}
	if strings.TrimSpace(action.Content) == "inc" {
		c.count++
	}
	text := "count is " + strconv.Itoa(c.count)
	msg := agentevolver.Message{Role: agentevolver.RoleUser, Content: text}
	if e.toolObs {
		msg = agentevolver.Message{Role: agentevolver.RoleTool, Content: text, ToolCallID: "call_1"}
	}
	return envclient.StepResult{State: []agentevolver.Message{msg}, IsTerminated: c.count >= e.goal, Info: map[string]any{}}, nil
}

func (e *counterEnv) Evaluate(_ context.Context, instanceID string, params map[string]any) (float64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.instances[instanceID]
	if !ok {
		return 0, envclient.ErrInstanceNotFound
	}
	if e.evalErr != nil {
		return 0, e.evalErr
	}
	if e.evalScore != nil {
		return *e.evalScore, nil
	}
	if c.count >= e.goal {
		return 1, nil
	}
	if params["sparse"] == true {
		return 0, nil
	}
	return float64(c.count) / float64(e.goal), nil
}

func (e *counterEnv) Info(_ context.Context, instanceID string, _ map[string]any) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

func (e *counterEnv) Release(_ context.Context, instanceID string) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.instances[instanceID]; !ok {
		return false, nil
	}
	delete(e.instances, instanceID)
	e.releases++
	e.live--
	return true, nil
}

// open returns how many instances are still held.
func (e *counterEnv) open() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.instances)
}

var errPolicyDown = errors.New("policy down")
