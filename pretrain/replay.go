package pretrain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/llm"
)

// replayer turns episode specs into training samples by replaying the
// expert through the same episode loop, context manager and experience
// injector as the trainer's rollouts: a sample holds exactly the tokens a
// policy reads and writes in training.
type replayer struct {
	expert  *toolworld.Env
	env     envclient.Env
	close   func()
	context contextmgr.Config
	summary experience.WorkedExampleSummarizer

	mu       sync.Mutex
	examples map[string]string // task id -> worked example text
}

// newReplayer serves env in process for replays with ctxCfg.
func newReplayer(env *toolworld.Env, ctxCfg contextmgr.Config, log *slog.Logger) (*replayer, error) {
	mgr := envservice.NewManager(envservice.ManagerConfig{Logger: log})
	if err := mgr.Register(toolworld.Name, env); err != nil {
		return nil, err
	}
	return &replayer{
		expert: env, env: mgr, close: func() { _ = mgr.Close() }, context: ctxCfg,
		examples: map[string]string{},
	}, nil
}

// episode replays the expert's solution of taskID with the worked examples
// of the given tasks in its prompt (kept in the sample, as experience a
// policy trains with in context). The episode must score 1.
func (p *replayer) episode(ctx context.Context, taskID string, examples []string) (agentflow.Result, error) {
	return p.replayEpisode(ctx, taskID, examples, -1)
}

// replayEpisode is episode with the tool list cut to the expert's tools
// and distractors others when distractors >= 0 (focusedEnv).
func (p *replayer) replayEpisode(ctx context.Context, taskID string, examples []string, distractors int) (agentflow.Result, error) {
	actions, err := p.expert.Solve(taskID)
	if err != nil {
		return agentflow.Result{}, err
	}
	var texts []string
	for _, ex := range examples {
		t, err := p.example(ctx, ex)
		if err != nil {
			return agentflow.Result{}, err
		}
		texts = append(texts, t)
	}
	env := p.env
	if distractors >= 0 {
		env = &focusedEnv{Env: p.env, keep: calledTools(actions), distractors: distractors}
	}
	f := &agentflow.Flow{
		Env: env, Policy: llm.NewScripted(actions), Context: p.context,
		EnvType: toolworld.Name, MaxSteps: len(actions), Sparse: true,
	}
	ro := agentflow.Rollout{Task: agentevolver.Task{TaskID: taskID, EnvType: toolworld.Name}, DataID: "0", RolloutID: "0"}
	if len(texts) > 0 {
		f.Experience = fixedExperience(texts)
		ro.AddExperience, ro.TrainMode = true, agentevolver.TrainKeep
	}
	res, err := f.Run(ctx, ro)
	if err != nil {
		return agentflow.Result{}, fmt.Errorf("pretrain: replay of %s: %w", taskID, err)
	}
	if res.Trajectory.Reward.Outcome != 1 {
		if !res.Trajectory.IsTerminated {
			// The expert's calls ran past the context window: a later
			// prompt did not fit, which the first one's check cannot see.
			return agentflow.Result{}, fmt.Errorf("%w: %s with %d worked examples", errEpisodeTruncated, taskID, len(texts))
		}
		return agentflow.Result{}, fmt.Errorf("pretrain: the expert scored %v on %s", res.Trajectory.Reward.Outcome, taskID)
	}
	return res, nil
}

// errEpisodeTruncated reports an expert episode cut short by the context
// window after its first turn (a long tool list, worked examples and many
// calls): its examples are dropped as for a first prompt that does not
// fit, and an episode too long even without them is left out.
var errEpisodeTruncated = errors.New("pretrain: the expert's episode does not fit the context window")

// example returns the worked example of taskID: its expert episode as the
// trainer's worked-example summariser writes it.
func (p *replayer) example(ctx context.Context, taskID string) (string, error) {
	p.mu.Lock()
	text, ok := p.examples[taskID]
	p.mu.Unlock()
	if ok {
		return text, nil
	}
	res, err := p.episode(ctx, taskID, nil)
	if err != nil {
		return "", err
	}
	exps, err := p.summary.Summarize(ctx, []agentevolver.Trajectory{res.Trajectory})
	if err != nil {
		return "", err
	}
	if len(exps) != 1 {
		return "", fmt.Errorf("pretrain: %s gives %d worked examples, want 1", taskID, len(exps))
	}
	p.mu.Lock()
	p.examples[taskID] = exps[0].Text
	p.mu.Unlock()
	return exps[0].Text, nil
}

// fixedExperience injects the given worked examples through the trainer's
// own injector, so the prompt has exactly the form retrieved experience
// has.
func fixedExperience(texts []string) agentflow.ExperienceInjector {
	exps := make([]experience.Experience, len(texts))
	for i, t := range texts {
		exps[i] = experience.Experience{Text: t}
	}
	return &experience.Injector{Pool: fixedPool(exps), TopK: len(exps)}
}

// fixedPool retrieves the same experiences for every task.
type fixedPool []experience.Experience

// Retrieve returns the first k experiences.
func (p fixedPool) Retrieve(_ context.Context, _ []agentevolver.Message, k int) ([]experience.Experience, error) {
	return p[:min(k, len(p))], nil
}

// Update is not supported.
func (p fixedPool) Update(context.Context, []agentevolver.Trajectory) error {
	return errors.New("pretrain: a fixed pool is read-only")
}

// taskExperience injects, per task, the worked examples of its tasks
// (evaluation with examples).
type taskExperience struct {
	texts map[string][]string
}

// Inject implements agentflow.ExperienceInjector.
func (t taskExperience) Inject(ctx context.Context, task agentevolver.Task, msgs []agentevolver.Message) ([]agentevolver.Message, []string, error) {
	texts := t.texts[task.TaskID]
	if len(texts) == 0 {
		return msgs, nil, nil
	}
	return fixedExperience(texts).Inject(ctx, task, msgs)
}
