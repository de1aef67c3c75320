package sqlworld_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/sqlworld"
)

// requireData skips the test, saying why, where the iso-codes files are
// not installed.
func requireData(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(sqlworld.DefaultDataDir + "/iso_3166-2.json"); err != nil {
		tb.Skipf("skipping: %s/iso_3166-2.json not found; install the Debian package iso-codes (apt-get install iso-codes) to run this test", sqlworld.DefaultDataDir)
	}
}

var shared struct {
	once sync.Once
	env  *sqlworld.Env
	err  error
}

// sharedEnv returns one Env with the default Config but a long statement
// timeout (under -race on a loaded machine the pure-Go SQLite is slow;
// TestTimeLimit checks the limit on an Env of its own), built once per
// test binary: it is safe for concurrent use and tests do not change it.
func sharedEnv(tb testing.TB) *sqlworld.Env {
	tb.Helper()
	requireData(tb)
	shared.once.Do(func() { shared.env, shared.err = sqlworld.New(sqlworld.Config{StatementTimeout: 30 * time.Second}) })
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.env
}

func sqlAction(q string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```sql\n" + q + "\n```"}
}

func submitAction(q string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```submit\n" + q + "\n```"}
}

// taskOf returns the first training task of template.
func taskOf(tb testing.TB, env *sqlworld.Env, template string) string {
	tb.Helper()
	ids, err := env.TaskIDs(context.Background(), sqlworld.SplitTrain, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for _, id := range ids {
		if info, _ := env.Task(id); info.Template == template {
			return id
		}
	}
	tb.Fatalf("no training task of template %s", template)
	return ""
}

// play runs actions on a fresh instance of taskID and returns the step
// results and the sparse score at the end.
func play(tb testing.TB, env *sqlworld.Env, taskID string, actions ...agentevolver.Message) ([]envclient.StepResult, float64) {
	tb.Helper()
	ctx := context.Background()
	inst, err := env.New(ctx, taskID, "test", nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer inst.Close()
	if _, err := inst.InitState(ctx, nil); err != nil {
		tb.Fatal(err)
	}
	var out []envclient.StepResult
	for _, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			tb.Fatalf("%s: step %q: %v", taskID, a.Content, err)
		}
		if len(res.State) != 1 || res.State[0].Role != agentevolver.RoleUser {
			tb.Fatalf("%s: observation %+v, want one user message", taskID, res.State)
		}
		out = append(out, res)
	}
	score, err := inst.Evaluate(ctx, map[string]any{"sparse": true})
	if err != nil {
		tb.Fatal(err)
	}
	return out, score
}
