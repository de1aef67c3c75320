package cues

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/parallel"
)

// noActionFallback is the action of an empty reply, as in the reference.
const noActionFallback = "look around"

// envWindow is how many messages of the conversation after the initial
// ones a PromptsEnv request shows: the last three turns, so that a policy
// with a short context keeps its prompt.
const envWindow = 6

func (p *Pipeline) tripletsFile() string { return "triplets/triplets_" + p.session + ".jsonl" }

const rolloutsFile = "triplets/rollouts.jsonl"

// rollouts returns the finished rollouts by index (the last record of
// each).
func (p *Pipeline) rollouts() (map[int]RolloutRecord, error) {
	done := map[int]RolloutRecord{}
	_, err := ReadLines(p.Store, rolloutsFile, func(r RolloutRecord) error {
		done[r.Rollout] = r
		return nil
	})
	return done, err
}

// finishedTriplets returns the triplets of finished rollouts, ordered by
// rollout and step; those of an attempt that did not finish are left out.
func (p *Pipeline) finishedTriplets() ([]Triplet, error) {
	done, err := p.rollouts()
	if err != nil {
		return nil, err
	}
	var out []Triplet
	bad, err := ReadLines(p.Store, p.tripletsFile(), func(t Triplet) error {
		if r, ok := done[t.Rollout]; ok && r.RunID == t.RunID {
			out = append(out, t)
		}
		return nil
	})
	if bad > 0 {
		p.Logger.Warn("cues: skipped unreadable triplet lines (a torn write)", "lines", bad)
	}
	slices.SortStableFunc(out, func(a, b Triplet) int {
		if a.Rollout != b.Rollout {
			return a.Rollout - b.Rollout
		}
		return a.Step - b.Step
	})
	return out, err
}

// Explore is Stage 1, curious exploration (reference §2.7): RolloutNum
// rollouts, Workers at a time, each on an environment task drawn for it
// from the split. Every step's triplet is appended to the triplets file as
// it happens; a rollout is finished when its record is appended to
// triplets/rollouts.jsonl, and a resumed run runs only the unfinished
// ones again (their partial triplets are then ignored). A rollout whose
// environment or model fails stops there and is recorded with the error
// (one that failed before its first step is tried again by a resumed
// run); Explore returns an error when every rollout failed that way.
func (p *Pipeline) Explore(ctx context.Context) error {
	done, err := p.rollouts()
	if err != nil {
		return err
	}
	ids, err := p.Env.TaskIDs(ctx, p.cfg.EnvType, p.cfg.Split)
	if err != nil {
		return fmt.Errorf("list tasks: %w", err)
	}
	if len(ids) == 0 {
		return fmt.Errorf("%w: %s has no %s tasks", ErrConfig, p.cfg.EnvType, p.cfg.Split)
	}
	n := p.cfg.Stage1.RolloutNum
	bar := p.progress("stage 1: rollouts", n)
	// A rollout that failed before its first step is tried again.
	for i, r := range done {
		if r.Error != "" && r.Steps == 0 {
			delete(done, i)
		} else if i < n {
			bar.Add(1)
		}
	}
	errs := make([]error, n)
	err = parallel.ForEach(ctx, n, p.cfg.Workers, func(i int) {
		if _, ok := done[i]; ok {
			return
		}
		r := rand.New(rand.NewPCG(uint64(p.seedOf("rollout-env", i)), 3))
		rec, err := p.rollout(ctx, i, ids[r.IntN(len(ids))])
		if ctx.Err() != nil {
			return // unfinished: a resumed run repeats it
		}
		if err != nil {
			errs[i] = err
			return
		}
		if rec.Error != "" {
			p.Logger.Warn("cues: rollout stopped early", "rollout", i, "env_id", rec.EnvID, "err", rec.Error)
		}
		if err := p.Store.Append(rolloutsFile, rec); err != nil {
			errs[i] = err
		}
		bar.Add(1)
	})
	bar.Finish()
	if err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	all, err := p.rollouts()
	if err != nil {
		return err
	}
	failed, first := 0, ""
	for i := range n {
		if r := all[i]; r.Error != "" && r.Steps == 0 {
			failed++
			first = cmp.Or(first, r.Error)
		}
	}
	if failed == n {
		return fmt.Errorf("all %d rollouts failed before their first step; the first: %s", n, first)
	}
	return nil
}

// rollout runs one exploration of envID. An environment or model failure
// ends it and is recorded in the record's Error; the returned error is
// one of storage.
func (p *Pipeline) rollout(ctx context.Context, i int, envID string) (RolloutRecord, error) {
	runID := idOf("run", p.session, i, p.Now().UnixNano())
	rec := RolloutRecord{Rollout: i, RunID: runID, EnvID: envID}
	var requirement, memory string
	if p.cfg.Prompts == PromptsCuES {
		var err error
		if requirement, err = p.rolloutRequirement(i); err != nil {
			return rec, err
		}
		if memory, err = p.explorationMemory(ctx, envID, i); err != nil {
			rec.Error = err.Error()
			return rec, nil
		}
	}
	inst, state, err := p.create(ctx, envID, nil)
	if err != nil {
		rec.Error = err.Error()
		return rec, nil
	}
	defer p.release(ctx, inst)
	desc := envDescription(state)
	initFile := "env_init/" + safeName(envID) + ".txt"
	if !p.Store.Exists(initFile) {
		if err := p.Store.WriteText(initFile, desc); err != nil {
			return rec, err
		}
	}
	var history []string             // "Action: …", "Observation: …"
	var convo []agentevolver.Message // PromptsEnv: the turns so far
	for step := 0; step < p.cfg.Stage1.MaxSteps; step++ {
		var reply string
		var err error
		if seed := p.seedOf("explore", i, runID, step); p.cfg.Prompts == PromptsEnv {
			reply, err = p.chatEnv(ctx, state, convo, seed)
		} else {
			reply, err = p.chat(ctx, chatMessages(ExplorerSystemPrompt(p.cfg.ActionFormat), ExplorerUserPrompt(requirement, memory, history, desc)), 0, seed)
		}
		if err != nil {
			rec.Error = err.Error()
			break
		}
		action, ok := ParseAction(reply)
		if p.cfg.Prompts == PromptsEnv {
			action, ok = strings.TrimSpace(reply), strings.TrimSpace(reply) != ""
		}
		if action == "" {
			action, ok = noActionFallback, false
		}
		if strings.Contains(action, FinishAction) {
			rec.Done = true
			break
		}
		msg := agentevolver.Message{Role: agentevolver.RoleAssistant, Content: action}
		res, err := p.Env.Step(ctx, inst, msg, nil)
		if err != nil {
			rec.Error = fmt.Sprintf("step %d: %v", step, err)
			break
		}
		obs := observation(res)
		t := Triplet{
			TripletID: idOf("triplet", runID, step), EnvID: envID, EnvType: p.cfg.EnvType, SessionID: p.session,
			Rollout: i, RunID: runID, Step: step,
			History: strings.Join(history[max(0, len(history)-3):], "\n"),
			Action:  action, Observation: obs, Reward: res.Reward, Done: res.IsTerminated,
			Timestamp: p.Now(), ExplorationMemory: memory, OriginalAction: reply, NoAction: !ok,
		}
		if err := p.Store.Append(p.tripletsFile(), t); err != nil {
			return rec, err
		}
		rec.Steps++
		history = append(history, "Action: "+action, "Observation: "+obs)
		convo = append(convo, msg)
		convo = append(convo, res.State...)
		if res.IsTerminated {
			rec.Done = true
			break
		}
	}
	return rec, nil
}
