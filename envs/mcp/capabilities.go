package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

// Profile describes the environment for task synthesis (reference §4.2):
// one entity, the server, whose operations are its tools (name, then
// description and argument names) and whose attributes are the argument
// names with the tools that take them. It implements
// envservice.ProfileProvider.
func (e *Env) Profile() agentevolver.EnvProfile {
	name := e.server.Name
	if name == "" {
		name = "mcp-server"
	}
	ent := agentevolver.Entity{Name: name, Description: "the tools of the MCP server " + name, Attrs: map[string]string{}}
	users := map[string][]string{}
	for _, t := range e.tools {
		args := argNames(t)
		for _, a := range args {
			users[a] = append(users[a], t.Name)
		}
		desc := strings.TrimSpace(t.Description)
		if len(args) > 0 {
			desc += " (arguments: " + strings.Join(args, ", ") + ")"
		}
		ent.Opts = append(ent.Opts, agentevolver.Operation{Name: t.Name, Description: desc})
	}
	for a, tools := range users {
		ent.Attrs[a] = "argument of " + strings.Join(tools, ", ")
	}
	return agentevolver.EnvProfile{
		Name: Name + ":" + name,
		Background: fmt.Sprintf("The user works with the MCP server %s through its tools, one call per turn; "+
			"a task ends with %s carrying the answer.", name, FinalAnswerTool),
		Entities:       []agentevolver.Entity{ent},
		TaskPreference: agentevolver.TaskPreference{NumEntities: 1, NumOpts: 2, RelationDifficulty: 2},
	}
}

func argNames(t Tool) []string {
	s := parseSchema(t.InputSchema)
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Corpus returns the text of a split, to learn a tokenizer from: the
// system prompt, then per task in split order its query and, when it has a
// reference solution, the solution's action texts. Nothing is run, so the
// corpus holds no tool results. It implements envservice.CorpusProvider.
func (e *Env) Corpus(ctx context.Context, split string) ([]string, error) {
	ids, err := e.TaskIDs(ctx, split, nil)
	if err != nil {
		return nil, err
	}
	docs := []string{e.system}
	for _, id := range ids {
		t := e.tasks[id]
		docs = append(docs, t.Query)
		if t.Solution != nil {
			for _, m := range solutionMessages(t.Solution) {
				docs = append(docs, m.Content)
			}
		}
	}
	return docs, nil
}

// Demonstrate returns the task's reference solution as actions: one
// assistant message per call, each a fenced JSON call (CallMessage), then
// the final_answer call. Whether it scores 1 is the task author's claim;
// the package's tests check it for the shipped task files. A task without
// a solution gives an error matching ErrNoSolution. It implements
// envservice.Expert.
func (e *Env) Demonstrate(ctx context.Context, taskID string) ([]agentevolver.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return nil, err
	}
	if t.Solution == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoSolution, taskID)
	}
	return solutionMessages(t.Solution), nil
}

func solutionMessages(s *Solution) []agentevolver.Message {
	msgs := make([]agentevolver.Message, 0, len(s.Calls)+1)
	for _, c := range s.Calls {
		msgs = append(msgs, CallMessage(c.Name, c.Arguments))
	}
	return append(msgs, CallMessage(FinalAnswerTool, map[string]any{"answer": s.Answer}))
}

// TaskMetadata returns the task's difficulty from the task file (0 when
// not given). It implements envservice.TaskMetadataProvider.
func (e *Env) TaskMetadata(ctx context.Context, taskID string) (envservice.TaskMetadata, error) {
	if err := ctx.Err(); err != nil {
		return envservice.TaskMetadata{}, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return envservice.TaskMetadata{}, err
	}
	return envservice.TaskMetadata{Difficulty: t.Difficulty}, nil
}
