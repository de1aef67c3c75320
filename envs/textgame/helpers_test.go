package textgame

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// newTestEnv returns an Env on the installed game, or skips the test with
// a message naming the package to install.
func newTestEnv(t testing.TB, cfg Config) *Env {
	t.Helper()
	e, err := New(cfg)
	if errors.Is(err, ErrNoBinary) {
		t.Skipf("skipping: the game is not installed (%v); apt-get install open-adventure", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func act(s string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s}
}

// children counts the live processes whose parent is this test process,
// zombies included.
func children(t testing.TB) int {
	t.Helper()
	me := strconv.Itoa(os.Getpid())
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("skipping: no /proc to count processes: %v", err)
	}
	n := 0
	for _, ent := range ents {
		if _, err := strconv.Atoi(ent.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + ent.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == me {
			n++
		}
	}
	return n
}

// play runs actions on a fresh instance of taskID and returns the step
// observations up to the end of the episode, its last reward and whether
// it terminated; the instance is closed.
func play(t testing.TB, e *Env, taskID string, actions []agentevolver.Message, params map[string]any) ([]string, float64, bool) {
	t.Helper()
	ctx := context.Background()
	in, err := e.newInstance(ctx, taskID, "test", params)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var obs []string
	var reward float64
	var done bool
	for i, a := range actions {
		res, err := in.Step(ctx, a, nil)
		if err != nil {
			t.Fatalf("%s step %d (%q): %v", taskID, i, a.Content, err)
		}
		obs = append(obs, res.State[0].Content)
		reward, done = res.Reward, res.IsTerminated
		if done {
			break
		}
	}
	return obs, reward, done
}
