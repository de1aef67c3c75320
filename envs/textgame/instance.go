package textgame

import (
	"context"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/envkit"
)

// Instance is one episode: one advent process. Like every
// envservice.Instance it is not safe for concurrent use (the server
// serialises calls on it). The process is killed by Close, and also as soon
// as it misbehaves (a timeout, an unreadable terminal); it never outlives
// the Instance's Close.
type Instance struct {
	env    *Env
	task   *task
	id     string
	sparse bool
	game   *game

	initial  string   // the game's first description of the road
	history  []string // the commands the game has read, in order
	steps    int      // actions taken, refused ones included
	reached  bool     // the milestone has been seen
	over     bool     // the game ended (death, quit)
	score    int      // the latest score known (score tasks)
	base     int      // the game's starting score (score tasks)
	failed   error    // the environment failure that ended the instance
	closed   bool
	finished bool // the episode has terminated
}

// start reads the game's welcome, declines the instructions and sets the
// seed.
func (in *Instance) start(ctx context.Context) error {
	if _, err := in.expect(ctx); err != nil {
		return err
	}
	for i, line := range strings.Split(strings.TrimSuffix(startInput(in.task.info.Seed), "\n"), "\n") {
		out, err := in.command(ctx, line)
		if err != nil {
			return err
		}
		if i == 0 {
			in.initial = out
		}
	}
	if in.task.spec.scoreTarget > 0 {
		base, err := in.env.startScore(ctx)
		if err != nil {
			return err
		}
		in.score, in.base = base, base
	}
	return nil
}

// expect reads the game's answer, which must end in a prompt.
func (in *Instance) expect(ctx context.Context) (string, error) {
	raw, ended, err := in.game.readReply(ctx, in.env.timeout)
	if err != nil {
		return "", in.fail(fmt.Errorf("%w: %w", ErrGame, err))
	}
	if ended {
		return "", in.fail(fmt.Errorf("%w: the game exited before the episode began: %s", ErrGame, clip(string(raw))))
	}
	return cleanOutput(raw, 0), nil
}

// command sends one line and returns the game's answer without the echo.
func (in *Instance) command(ctx context.Context, line string) (string, error) {
	if err := in.game.send(line); err != nil {
		return "", in.fail(fmt.Errorf("%w: write: %w", ErrGame, err))
	}
	out, err := in.expect(ctx)
	return stripEcho(out, line), err
}

// stripEcho drops the echo of line from the start of out. The game reads
// with GNU readline, which echoes the line itself; the terminal echoes it
// once more when the line arrives before readline has switched the
// terminal's echo off (a race, decided by the scheduler). So the echo is
// one or two lines equal to line, never separated by a blank line, while
// the game's answer always starts after one.
func stripEcho(out, line string) string {
	for range 2 {
		if out == line {
			return ""
		}
		if !strings.HasPrefix(out, line+"\n") {
			break
		}
		out = out[len(line)+1:]
	}
	return strings.TrimSpace(out)
}

// fail kills the game and records err as the instance's failure.
func (in *Instance) fail(err error) error {
	in.game.kill()
	if in.failed == nil {
		in.failed = err
	}
	return err
}

// InitState returns the system prompt and a user message with the goal
// and the game's description of the start, with info {instance_id,
// task_id, seed}.
func (in *Instance) InitState(ctx context.Context, _ map[string]any) (envclient.InitState, error) {
	if err := in.usable(ctx); err != nil {
		return envclient.InitState{}, err
	}
	return envclient.InitState{
		State: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: in.env.system},
			{Role: agentevolver.RoleUser, Content: "Goal: " + in.task.info.Goal + "\n\n" + in.initial},
		},
		Info: map[string]any{"instance_id": in.id, "task_id": in.task.info.ID, "seed": in.task.info.Seed},
	}, nil
}

// Step sends the action, one command line, to the game and returns what
// the game prints until it waits for input again, as one user message. A
// command the game does not understand is answered by the game's own text
// ("Sorry, I don't know the word ..."); an action that is not one clean
// line (SanitizeAction) or that the environment refuses (saving,
// restoring, seed, waste) gets an observation of its own and is not sent
// to the game. Each counts as a step.
//
// The episode terminates when the goal is reached, when the game ends
// (death without reincarnation, quit) or after Config.MaxCommands steps;
// the terminating step's reward is Evaluate's score (sparse per
// params["sparse"], else the create params), earlier rewards are 0. A game
// that crashes, is killed or stops answering is an environment failure:
// Step returns an error matching ErrGame, the process is gone and every
// later call fails the same way.
func (in *Instance) Step(ctx context.Context, action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	if err := in.usable(ctx); err != nil {
		return envclient.StepResult{}, err
	}
	sparse, present, err := sparseParam(params)
	if err != nil {
		return envclient.StepResult{}, err
	}
	if !present {
		sparse = in.sparse
	}
	if in.finished {
		return in.result("The episode is over; no more commands are accepted.", sparse), nil
	}
	in.steps++
	defer func() {
		if r := recover(); r != nil {
			in.game.kill() // the game's state is unknown after a panic
			in.failed = fmt.Errorf("%w: panic during a step: %v", ErrGame, r)
			panic(r)
		}
	}()
	obs, err := in.apply(ctx, action)
	if err != nil {
		return envclient.StepResult{}, err
	}
	if in.over || in.reached || in.steps >= in.env.maxCommands || in.goalScoreMet() {
		in.finished = true
	}
	return in.result(obs, sparse), nil
}

func (in *Instance) result(obs string, sparse bool) envclient.StepResult {
	res := envclient.StepResult{
		State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: obs}},
		IsTerminated: in.finished,
		Info:         map[string]any{"steps": in.steps, "game_over": in.over},
	}
	if in.finished {
		res.Reward = in.value(sparse)
	}
	return res
}

// apply runs one action and returns its observation.
func (in *Instance) apply(ctx context.Context, action agentevolver.Message) (string, error) {
	cmd, err := SanitizeAction(action.Content)
	if err != nil {
		return "error: " + strings.TrimPrefix(err.Error(), ErrBadAction.Error()+": "), nil
	}
	if msg := blocked(cmd); msg != "" {
		return msg, nil
	}
	if err := in.game.send(cmd); err != nil {
		return "", in.fail(fmt.Errorf("%w: write: %w", ErrGame, err))
	}
	raw, ended, err := in.game.readReply(ctx, in.env.timeout)
	if err != nil {
		// A timeout or a cancelled ctx leaves the game in an unknown
		// state: it is killed, and the episode is an environment failure.
		return "", in.fail(fmt.Errorf("%w: %w", ErrGame, err))
	}
	in.history = append(in.history, cmd)
	obs := stripEcho(cleanOutput(raw, 0), cmd)
	if ended {
		final, ok := parseFinalScore(obs)
		status, exited := in.game.waitExit(in.env.timeout)
		if !ok || !exited || status != nil {
			return "", in.fail(fmt.Errorf("%w: the game process ended without a final score (exit %v): %s", ErrGame, status, clip(obs)))
		}
		in.game.kill() // reaps and cleans up; the process is gone
		in.over, in.score = true, final
	}
	if p := in.task.spec.milestone; p != nil && p.seenIn(obs) {
		in.reached = true
	}
	if in.task.spec.scoreTarget > 0 && !in.over {
		s, err := in.env.replayScore(ctx, in.task.info.Seed, in.history)
		if err != nil {
			return "", in.fail(err)
		}
		in.score = s
	}
	return cleanOutput([]byte(obs), in.env.maxObs), nil
}

func (in *Instance) goalScoreMet() bool {
	return in.task.spec.scoreTarget > 0 && in.value(true) == 1
}

// Evaluate scores the episode so far. A milestone task scores 1 once the
// game has described the milestone's place, else 0 (dense and sparse
// alike). A score task scores the points gained over the start divided by
// the target, clipped to [0, 1], or with params["sparse"] == true 1 when
// the target is met and 0 otherwise. The score is the game's own (what
// "score" would print), learnt by replaying the episode's commands on a
// separate game process after each step, so Evaluate never types into the
// live game.
func (in *Instance) Evaluate(ctx context.Context, params map[string]any) (float64, error) {
	if err := in.usable(ctx); err != nil {
		return 0, err
	}
	sparse, _, err := sparseParam(params)
	if err != nil {
		return 0, err
	}
	return in.value(sparse), nil
}

func (in *Instance) value(sparse bool) float64 {
	if in.task.spec.milestone != nil {
		if in.reached {
			return 1
		}
		return 0
	}
	gain := float64(in.score - in.base)
	target := float64(in.task.spec.scoreTarget)
	switch {
	case gain >= target:
		return 1
	case sparse || gain <= 0:
		return 0
	}
	return gain / target
}

// Info returns the task's description (a TaskInfo) and the episode's
// progress: {"task": TaskInfo, "steps": n, "score": points or null,
// "game_over": bool, "reached": bool}.
func (in *Instance) Info(ctx context.Context, _ map[string]any) (any, error) {
	if err := in.usable(ctx); err != nil {
		return nil, err
	}
	info := map[string]any{"task": in.task.info, "steps": in.steps, "game_over": in.over, "reached": in.reached, "score": nil}
	if in.task.spec.scoreTarget > 0 || in.over {
		info["score"] = in.score
	}
	return info, nil
}

// Close kills the game's process group and waits for it; later calls fail
// with ErrClosed. It is safe to call more than once.
func (in *Instance) Close() error {
	in.closed = true
	in.game.kill()
	return nil
}

func (in *Instance) usable(ctx context.Context) error {
	if err := envkit.Usable(ctx, in.closed, ErrClosed); err != nil {
		return err
	}
	if in.failed != nil {
		return fmt.Errorf("textgame: instance failed earlier: %w", in.failed)
	}
	return nil
}
