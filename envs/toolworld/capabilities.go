package toolworld

import (
	"context"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

// Demonstrate returns the expert's actions for taskID, as Solve does: one
// assistant message per call, ending with task.finish, which replayed on a
// fresh instance score 1. It implements envservice.Expert.
func (e *Env) Demonstrate(ctx context.Context, taskID string) ([]agentevolver.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.Solve(taskID)
}

// TaskMetadata describes taskID: its Difficulty is the task's Level (1..3).
// An unknown id gives an error matching ErrUnknownTask. It implements
// envservice.TaskMetadataProvider.
func (e *Env) TaskMetadata(ctx context.Context, taskID string) (envservice.TaskMetadata, error) {
	if err := ctx.Err(); err != nil {
		return envservice.TaskMetadata{}, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return envservice.TaskMetadata{}, err
	}
	return envservice.TaskMetadata{Difficulty: t.info.Level}, nil
}

// Corpus returns the text a policy reads and writes on the tasks of split,
// to learn a tokenizer from: each distinct system prompt once (the first
// time a task of its world comes), then for each task in split order its
// instruction and, for each of the expert's actions, the action text
// followed by the observation it gets. It implements
// envservice.CorpusProvider.
//
// Corpus covers every generated task of the split whatever Config.MaxLevel,
// so a learned vocabulary does not depend on the level filter: it is the
// same with and without MaxLevel, as it was when levels were filtered by
// the trainer rather than here.
func (e *Env) Corpus(ctx context.Context, split string) ([]string, error) {
	ids, ok := e.splits[split]
	if !ok {
		return nil, fmt.Errorf("toolworld: corpus: %w: %q (want train, val or test)", ErrUnknownSplit, split)
	}
	var corpus []string
	prompts := map[string]bool{}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		system := e.systemPrompt(e.tasks[id])
		docs, err := e.taskCorpus(ctx, id, i, !prompts[system])
		prompts[system] = true
		if err != nil {
			return nil, fmt.Errorf("toolworld: corpus of %s: %w", id, err)
		}
		corpus = append(corpus, docs...)
	}
	return corpus, nil
}

// taskCorpus plays the expert's solution of taskID on a fresh instance and
// returns the texts of the episode: the initial state's messages (the
// system prompt only when withSystem), then each action and its
// observations.
func (e *Env) taskCorpus(ctx context.Context, taskID string, index int, withSystem bool) ([]string, error) {
	inst, err := e.newInstance(ctx, taskID, fmt.Sprintf("corpus-%d", index), nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = inst.Close() }()
	st, err := inst.InitState(ctx, nil)
	if err != nil {
		return nil, err
	}
	var docs []string
	for j, m := range st.State {
		if j > 0 || withSystem {
			docs = append(docs, m.Content)
		}
	}
	actions, err := e.Solve(taskID)
	if err != nil {
		return nil, err
	}
	for _, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			return nil, err
		}
		docs = append(docs, a.Content)
		for _, m := range res.State {
			docs = append(docs, m.Content)
		}
	}
	return docs, nil
}
