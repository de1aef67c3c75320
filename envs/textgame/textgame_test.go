package textgame

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/org/agentevolver"
)

func TestExpertReachesEveryGoal(t *testing.T) {
	for _, seed := range []int64{0, 7} {
		e := newTestEnv(t, Config{Seed: seed})
		t.Logf("seed %d", seed)
		for _, split := range []string{SplitTrain, SplitVal, SplitTest} {
			ids, err := e.TaskIDs(context.Background(), split, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				t.Run(id, func(t *testing.T) {
					actions, err := e.Demonstrate(context.Background(), id)
					if err != nil {
						t.Fatal(err)
					}
					obs, reward, done := play(t, e, id, actions, nil)
					if !done || reward != 1 {
						t.Fatalf("seed %d: expert ended done=%v reward=%v; last observation %q", seed, done, reward, obs[len(obs)-1])
					}
				})
			}
		}
	}
}

func TestEpisodes(t *testing.T) {
	e := newTestEnv(t, Config{MaxCommands: 4})
	tests := []struct {
		name     string
		task     string
		actions  []string
		wantObs  []string // substrings of the observations, in order; "" skips
		reward   float64
		done     bool
		evalDens float64
	}{
		{"milestone in one", "advent-train-0000", []string{"in"}, []string{"well house"}, 1, true, 1},
		{"idle milestone", "advent-train-0003", []string{"look", "inventory"}, []string{"end of a road", "not carrying anything"}, 0, false, 0},
		{"idle score task", "advent-train-0004", []string{"look", "inventory", "xyzzy", "score"}, []string{"", "", "Nothing happens", "32 out of a possible 430"}, 0, true, 0},
		{"bad commands", "advent-train-0000", []string{"frobnicate", "take", "s\nn", strings.Repeat("x", MaxActionBytes+1)},
			[]string{`I don't know the word "frobnicate"`, "Take what?", "error: several lines", "error: command of"}, 0, true, 0},
		{"refused commands", "advent-train-0000", []string{"save", "seed 3"}, []string{"does not allow saving", "does not allow the debugging command seed"}, 0, false, 0},
		{"quit ends the game", "advent-train-0003", []string{"quit", "yes"}, []string{"really want to quit", "You scored 32"}, 0, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			in, err := e.newInstance(ctx, tc.task, "t", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var res struct {
				reward float64
				done   bool
			}
			for i, a := range tc.actions {
				r, err := in.Step(ctx, act(a), nil)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if w := tc.wantObs[i]; w != "" && !strings.Contains(r.State[0].Content, w) {
					t.Errorf("step %d %q: observation %q lacks %q", i, a, r.State[0].Content, w)
				}
				res.reward, res.done = r.Reward, r.IsTerminated
			}
			if res.reward != tc.reward || res.done != tc.done {
				t.Errorf("reward %v done %v, want %v %v", res.reward, res.done, tc.reward, tc.done)
			}
			got, err := in.Evaluate(ctx, nil)
			if err != nil || got != tc.evalDens {
				t.Errorf("Evaluate = %v, %v; want %v", got, err, tc.evalDens)
			}
		})
	}
}

func TestDenseScore(t *testing.T) {
	e := newTestEnv(t, Config{})
	// advent-val-0001 wants 27 points; the Hall of Mists alone gives 25.
	actions, _ := e.Demonstrate(context.Background(), "advent-val-0001")
	ctx := context.Background()
	in, err := e.newInstance(ctx, "advent-val-0001", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	for _, a := range actions[:len(actions)-1] {
		if _, err := in.Step(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	dense, _ := in.Evaluate(ctx, nil)
	sparse, _ := in.Evaluate(ctx, map[string]any{"sparse": true})
	if want := 25.0 / 27; dense != want || sparse != 0 {
		t.Errorf("at the Hall of Mists: dense %v sparse %v, want %v 0", dense, sparse, want)
	}
	// The score the replay reports is the one the live game prints.
	r, err := in.Step(ctx, act("score"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.State[0].Content, "You have garnered 57 out of") {
		t.Errorf("live score %q, want 57 (32 + 25)", r.State[0].Content)
	}
}

// wander is a walk from the road into the deep cave and about it, where
// the dwarves and the pirate act on the game's random numbers.
func wander() []agentevolver.Message {
	var walk []agentevolver.Message
	for _, c := range routeHall {
		walk = append(walk, act(c))
	}
	for range 6 {
		for _, c := range []string{"w", "e", "n", "s", "d", "u"} {
			walk = append(walk, act(c))
		}
	}
	return walk
}

func TestReproducible(t *testing.T) {
	e := newTestEnv(t, Config{MaxCommands: 100})
	walk := wander()
	// advent-test-0001 (the nugget room) is not on the walk.
	a, _, _ := play(t, e, "advent-test-0001", walk, nil)
	b, _, _ := play(t, e, "advent-test-0001", walk, nil)
	if x, y := strings.Join(a, "\n--\n"), strings.Join(b, "\n--\n"); x != y {
		t.Errorf("two episodes of one task and commands differ:\n%s\n====\n%s", x, y)
	}
	// With Config.Seed 0 a dwarf's knife kills the player at the same step
	// of every run; the answer "n" to reincarnation then ends the game
	// (51 = 32 + 25 for the deep cave - 10 for the death + 4 for not
	// quitting). The step changes with the task's seed, not between runs.
	if last := a[len(a)-1]; len(a) != 43 || !strings.Contains(last, "You scored 51 out of a possible 430") ||
		!strings.Contains(strings.Join(a, "\n"), "gotten yourself killed") {
		t.Errorf("seed 0: %d steps ending %q, want death and the final score 51 at step 43", len(a), clip(last))
	}
	e2 := newTestEnv(t, Config{MaxCommands: 100, Seed: 1})
	c, _, _ := play(t, e2, "advent-test-0001", walk, nil)
	if strings.Join(a, "\n") == strings.Join(c, "\n") {
		t.Errorf("seeds 0 and 1 gave the same transcript of %d steps: the seed does not reach the game", len(a))
	}
	t.Logf("seed 0: %d steps, last %q; seed 1: %d steps, last %q", len(a), clip(a[len(a)-1]), len(c), clip(c[len(c)-1]))
}

func TestNoBinary(t *testing.T) {
	_, err := New(Config{Binary: "/nonexistent/advent"})
	if !errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), "open-adventure") {
		t.Fatalf("err = %v, want ErrNoBinary naming open-adventure", err)
	}
}

func TestUnknownTaskAndSplit(t *testing.T) {
	e := newTestEnv(t, Config{})
	ctx := context.Background()
	if _, err := e.New(ctx, "advent-train-9999", "x", nil); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("New unknown: %v", err)
	}
	if _, err := e.TaskIDs(ctx, "dev", nil); !errors.Is(err, ErrUnknownSplit) {
		t.Errorf("TaskIDs dev: %v", err)
	}
	if _, err := e.New(ctx, "advent-train-0000", "x", map[string]any{"sparse": 3}); !errors.Is(err, ErrBadParams) {
		t.Errorf("New sparse 3: %v", err)
	}
}

func TestReleaseKillsProcess(t *testing.T) {
	e := newTestEnv(t, Config{})
	before := children(t)
	ctx := context.Background()
	in, err := e.newInstance(ctx, "advent-train-0003", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := children(t); n != before+1 {
		t.Errorf("%d children with a live instance, want %d", n, before+1)
	}
	if _, err := in.Step(ctx, act("in"), nil); err != nil {
		t.Fatal(err)
	}
	pid := in.game.pid()
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if n := children(t); n != before {
		t.Errorf("%d children after release, want %d", n, before)
	}
	if _, err := in.Step(ctx, act("out"), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Step after Close: %v, want ErrClosed", err)
	}
	if processExists(pid) {
		t.Errorf("process %d still exists", pid)
	}
}

func TestKilledGameIsStepError(t *testing.T) {
	e := newTestEnv(t, Config{})
	before := children(t)
	ctx := context.Background()
	in, err := e.newInstance(ctx, "advent-train-0003", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	killProcess(t, in.game.pid())
	_, err = in.Step(ctx, act("in"), nil)
	if !errors.Is(err, ErrGame) {
		t.Fatalf("Step on a killed game: %v, want ErrGame", err)
	}
	if _, err := in.Evaluate(ctx, nil); !errors.Is(err, ErrGame) {
		t.Errorf("Evaluate after the failure: %v, want ErrGame", err)
	}
	in.Close()
	if n := children(t); n != before {
		t.Errorf("%d children after a killed game, want %d", n, before)
	}
}

func TestTimeoutKillsGame(t *testing.T) {
	// A "game" that never prompts: cat echoes and waits forever.
	e := newTestEnv(t, Config{})
	e.timeout = 300 * time.Millisecond
	before := children(t)
	e.binary = "/bin/cat"
	_, err := e.newInstance(context.Background(), "advent-train-0000", "t", nil)
	if !errors.Is(err, ErrGame) || !strings.Contains(err.Error(), "no prompt") {
		t.Fatalf("New on a silent program: %v, want ErrGame with no prompt", err)
	}
	if n := children(t); n != before {
		t.Errorf("%d children after a timeout, want %d", n, before)
	}
}

func TestConcurrentGames(t *testing.T) {
	e := newTestEnv(t, Config{})
	before := children(t)
	ids := []string{"advent-train-0001", "advent-train-0002", "advent-train-0003", "advent-val-0000"}
	errs := make(chan error, len(ids))
	for _, id := range ids {
		go func() { errs <- playExpert(e, id) }()
	}
	for range ids {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := children(t); n != before {
		t.Errorf("%d children after concurrent games, want %d", n, before)
	}
}

// playExpert plays the expert's episode of id on a fresh instance, closed
// before it returns.
func playExpert(e *Env, id string) error {
	ctx := context.Background()
	acts, err := e.Demonstrate(ctx, id)
	if err != nil {
		return err
	}
	in, err := e.New(ctx, id, id, nil)
	if err != nil {
		return err
	}
	defer in.Close()
	var last float64
	for _, a := range acts {
		r, err := in.Step(ctx, a, nil)
		if err != nil {
			return err
		}
		last = r.Reward
	}
	if last != 1 {
		return errors.New(id + ": expert did not score 1")
	}
	return nil
}

// TestReplayMatchesLiveGame checks the ground the score rests on: the
// game replayed on a pipe (how Evaluate learns the score) answers every
// command exactly as the live game on its terminal did.
func TestReplayMatchesLiveGame(t *testing.T) {
	e := newTestEnv(t, Config{MaxCommands: 100})
	walk := wander()
	live, _, _ := play(t, e, "advent-test-0001", walk, nil)
	info, _ := e.Task("advent-test-0001")
	var cmds []string
	for _, a := range walk[:len(live)] {
		cmds = append(cmds, a.Content)
	}
	out, err := e.replay(context.Background(), info.Seed, cmds, "")
	if err != nil {
		t.Fatal(err)
	}
	// On a pipe the game echoes each line after its prompt "> ".
	segs := strings.Split(out, "\n> ")
	const start = 3 // the welcome, then the answers to "no" and "seed N"
	if len(segs) < start+len(live) {
		t.Fatalf("replay has %d answers, want %d", len(segs)-start, len(live))
	}
	for i, obs := range live {
		seg := segs[start+i]
		_, answer, _ := strings.Cut(seg, "\n")
		if i == len(live)-1 && !strings.Contains(obs, "You scored") {
			answer, _, _ = strings.Cut(answer, "\nYou scored") // the replay's own end of input
		}
		if got := cleanOutput([]byte(answer), e.maxObs); got != obs {
			t.Fatalf("command %d %q: replay answered\n%s\nlive game answered\n%s", i, cmds[i], got, obs)
		}
	}
}

// TestKillsProcessGroup uses a stand-in game that starts a child of its
// own: releasing the instance must end both.
func TestKillsProcessGroup(t *testing.T) {
	e := newTestEnv(t, Config{})
	script := filepath.Join(t.TempDir(), "fakeadvent")
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	body := "#!/bin/sh\nsleep 300 &\necho $! > " + pidFile + "\nwhile :; do printf '\\n> '; read line || exit 0; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	e.binary = script
	before := children(t)
	in, err := e.newInstance(context.Background(), "advent-train-0000", "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !processExists(child) {
		t.Fatalf("the stand-in's child %d is not running", child)
	}
	t.Logf("game pid %d", in.game.pid())
	in.Close()
	deadline := time.Now().Add(5 * time.Second)
	for processExists(child) && !isZombie(child) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if processExists(child) && !isZombie(child) {
		st, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		t.Errorf("the game's child %d outlived the instance: %s", child, st)
	}
	if n := children(t); n != before {
		t.Errorf("%d children after release, want %d", n, before)
	}
}
