package sqlworld_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/sqlworld"
)

func TestMissingDataDir(t *testing.T) {
	for _, dir := range []string{t.TempDir() + "/nowhere", t.TempDir()} {
		_, err := sqlworld.New(sqlworld.Config{DataDir: dir})
		if !errors.Is(err, sqlworld.ErrNoData) || !strings.Contains(err.Error(), "iso-codes") {
			t.Errorf("New(DataDir %s) = %v, want ErrNoData naming the iso-codes package", dir, err)
		}
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []sqlworld.Config{
		{TrainSize: -1}, {TestSize: sqlworld.MaxSplitSize + 1}, {MaxRows: -1}, {MaxRows: sqlworld.MaxMaxRows + 1},
		{StatementTimeout: -time.Second}, {MaxActions: -2}, {MaxObservationBytes: 10}, {MaxConns: -1},
	} {
		if _, err := sqlworld.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// Every task of every split is solved by the expert: the reference query,
// then its submission, score 1 sparse and dense.
func TestExpertSolvesEverySplit(t *testing.T) {
	env := sharedEnv(t)
	ctx := context.Background()
	for _, tc := range []struct {
		split string
		n     int
	}{{sqlworld.SplitTrain, sqlworld.DefaultTrainSize}, {sqlworld.SplitVal, sqlworld.DefaultValSize}, {sqlworld.SplitTest, sqlworld.DefaultTestSize}} {
		t.Run(tc.split, func(t *testing.T) {
			ids, err := env.TaskIDs(ctx, tc.split, nil)
			if err != nil || len(ids) != tc.n {
				t.Fatalf("TaskIDs = %d ids, %v; want %d", len(ids), err, tc.n)
			}
			for i, id := range ids {
				if want := fmt.Sprintf("sql-%s-%04d", tc.split, i); id != want {
					t.Fatalf("id %d = %s, want %s", i, id, want)
				}
				actions, err := env.Demonstrate(ctx, id)
				if err != nil || len(actions) != 2 {
					t.Fatalf("Demonstrate(%s) = %d actions, %v", id, len(actions), err)
				}
				res, score := play(t, env, id, actions...)
				if strings.HasPrefix(res[0].State[0].Content, "error:") || res[0].IsTerminated {
					t.Fatalf("%s: expert query observation %q", id, res[0].State[0].Content)
				}
				if !res[1].IsTerminated || res[1].Reward != 1 || score != 1 {
					t.Fatalf("%s: submit %+v, score %v; want terminated with reward 1", id, res[1], score)
				}
				if i == 0 { // a step after the end earns nothing and changes nothing
					res, score := play(t, env, id, append(actions, actions[1])...)
					if r := res[2]; !r.IsTerminated || r.Reward != 0 || score != 1 {
						t.Fatalf("%s: step after the end %+v, score %v", id, r, score)
					}
				}
			}
		})
	}
}

func TestSplitsDisjointAndDeterministic(t *testing.T) {
	env := sharedEnv(t)
	ctx := context.Background()
	seen := map[string]string{}
	counts := map[string]map[int]int{}
	for _, split := range []string{sqlworld.SplitTrain, sqlworld.SplitVal, sqlworld.SplitTest} {
		ids, _ := env.TaskIDs(ctx, split, nil)
		counts[split] = map[int]int{}
		for i, id := range ids {
			info, err := env.Task(id)
			if err != nil {
				t.Fatal(err)
			}
			if other, ok := seen[info.Question]; ok {
				t.Errorf("%s and %s share the question %q", id, other, info.Question)
			}
			seen[info.Question] = id
			if info.Difficulty != 1+i%3 {
				t.Errorf("%s: difficulty %d, want %d", id, info.Difficulty, 1+i%3)
			}
			counts[split][info.Difficulty]++
		}
	}
	t.Logf("tasks per split and difficulty: %v", counts)

	same, err := sqlworld.New(sqlworld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer same.Close()
	other, err := sqlworld.New(sqlworld.Config{Seed: 7, TrainSize: 30, ValSize: 3, TestSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	differ := 0
	for _, split := range []string{sqlworld.SplitTrain, sqlworld.SplitVal, sqlworld.SplitTest} {
		ids, _ := env.TaskIDs(ctx, split, nil)
		for _, id := range ids {
			a, _ := env.Task(id)
			b, _ := same.Task(id)
			ra, _ := env.ReferenceSQL(id)
			rb, _ := same.ReferenceSQL(id)
			if a != b || ra != rb {
				t.Fatalf("%s differs between two Envs of seed 0: %+v vs %+v", id, a, b)
			}
			if c, err := other.Task(id); err == nil && c.Question != a.Question {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("seed 7 gives the same tasks as seed 0")
	}
}

func TestAnswers(t *testing.T) {
	env := sharedEnv(t)
	// Look up real tasks by template and rewrite their reference queries.
	lookup := taskOf(t, env, "country_alpha3")
	list := taskOf(t, env, "subdivisions_of_type")
	count := taskOf(t, env, "subdivisions_count_country")
	top := taskOf(t, env, "top_numeric")
	ref := func(id string) string {
		s, err := env.ReferenceSQL(id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name   string
		taskID string
		submit string
		want   float64
	}{
		{"reference", lookup, ref(lookup), 1},
		{"case and spaces ignored", lookup, "SELECT '  ' || lower(alpha_3) || ' ' FROM countries WHERE alpha_3 IN (" + ref(lookup) + ")", 1},
		{"wrong row", lookup, "SELECT alpha_3 FROM countries WHERE alpha_3 NOT IN (" + ref(lookup) + ") LIMIT 1", 0},
		{"extra column", lookup, "SELECT alpha_3, name FROM countries WHERE alpha_3 IN (" + ref(lookup) + ")", 0},
		{"empty", lookup, ref(lookup) + " LIMIT 0", 0},
		{"unordered list reversed", list, "SELECT * FROM (" + ref(list) + ") ORDER BY 1 DESC", 1},
		{"duplicates ignored", list, ref(list) + " UNION ALL " + ref(list), 1},
		{"missing row", list, "SELECT * FROM (" + ref(list) + ") ORDER BY 1 LIMIT (SELECT count(*) - 1 FROM (" + ref(list) + "))", 0},
		{"count as float", count, "SELECT 1.0 * (" + ref(count) + ")", 1},
		{"count as text", count, "SELECT printf('%05d', (" + ref(count) + "))", 1},
		{"count off by one", count, "SELECT (" + ref(count) + ") + 1", 0},
		{"ordered", top, ref(top), 1},
		{"ordered reversed", top, "SELECT name FROM (" + ref(top) + ") ORDER BY rowid DESC", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, score := play(t, env, tc.taskID, submitAction(tc.submit))
			if score != tc.want {
				t.Errorf("submit %q: score %v, want %v (observation %q)", tc.submit, score, tc.want, res[0].State[0].Content)
			}
		})
	}
}

// Failing queries are observations, and the episode goes on.
func TestQueryErrors(t *testing.T) {
	env := sharedEnv(t)
	id := taskOf(t, env, "country_alpha3")
	for _, tc := range []struct {
		name   string
		action agentevolver.Message
		want   string
	}{
		{"syntax", sqlAction("SELECT name FROM FROM countries"), `error: near "FROM": syntax error`},
		{"not a select", sqlAction("SELEC name FROM countries"), "error: only SELECT queries are allowed"},
		{"no table", sqlAction("SELECT * FROM country"), "error: no such table: country"},
		{"no column", sqlAction("SELECT population FROM countries"), "error: no such column: population"},
		{"no block", agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "SELECT 1"}, "error: no action found"},
		{"untagged", agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```\nSELECT 1\n```"}, "error: a code block needs the tag"},
		{"two blocks", agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```sql\nSELECT 1\n```\n```sql\nSELECT 2\n```"}, "error: 2 blocks found"},
		{"empty", sqlAction("  "), "error: the sql block is empty"},
		{"failed submit", submitAction("SELECT nope FROM countries"), "error: no such column: nope (the answer was not accepted"},
		{"too long", sqlAction("SELECT '" + strings.Repeat("x", sqlworld.MaxStatementBytes) + "'"), "error: the query is"},
		{"huge action", sqlAction(strings.Repeat(" ", sqlworld.MaxActionBytes)), "error: the message is"},
		{"huge value", sqlAction("SELECT randomblob(100000000)"), "error: string or blob too big"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, score := play(t, env, id, tc.action, sqlAction("SELECT 1"))
			if got := res[0].State[0].Content; !strings.HasPrefix(got, tc.want) {
				t.Errorf("observation %q, want prefix %q", got, tc.want)
			}
			if res[0].IsTerminated || res[1].IsTerminated || score != 0 {
				t.Errorf("terminated %v %v score %v; the episode should go on", res[0].IsTerminated, res[1].IsTerminated, score)
			}
			if got := res[1].State[0].Content; got != "1\n1\n(1 row)" {
				t.Errorf("next query: %q", got)
			}
		})
	}
}

// Writes and every other non-SELECT statement are refused, and the data
// stays as it was.
func TestWritesRefused(t *testing.T) {
	env := sharedEnv(t)
	id := taskOf(t, env, "country_alpha3")
	const countQ = "SELECT (SELECT count(*) FROM countries) || '/' || (SELECT count(*) FROM subdivisions) || '/' || (SELECT count(*) FROM sqlite_schema)"
	before, _ := play(t, env, id, sqlAction(countQ))
	for _, q := range []string{
		"INSERT INTO countries VALUES ('XX', 'XXX', 999, 'Nowhere', NULL, NULL)",
		"UPDATE countries SET name = 'x'",
		"DELETE FROM subdivisions",
		"REPLACE INTO currencies VALUES ('XXX', 1, 'x')",
		"DROP TABLE countries",
		"CREATE TABLE t(x)",
		"CREATE TEMP TABLE t(x)",
		"ALTER TABLE countries ADD COLUMN x",
		"ATTACH DATABASE '/tmp/sqlworld-attack.db' AS x",
		"DETACH DATABASE main",
		"PRAGMA writable_schema = ON",
		"PRAGMA query_only = 0",
		"VACUUM",
		"BEGIN",
		"SELECT 1; DROP TABLE countries",
		"SELECT 1;; SELECT 2",
		"WITH x AS (SELECT 1) DELETE FROM countries",
		"WITH x AS (SELECT 1) INSERT INTO currencies SELECT 'XXX', 1, 'x' FROM x",
		"SELECT load_extension('/tmp/x.so')",
		"SELECT * FROM pragma_writable_schema",
		"/* comment */ DROP TABLE countries",
		"-- c\nDELETE FROM countries",
	} {
		t.Run(q, func(t *testing.T) {
			for _, a := range []agentevolver.Message{sqlAction(q), submitAction(q)} {
				res, score := play(t, env, id, a)
				if obs := res[0].State[0].Content; !strings.HasPrefix(obs, "error:") || score != 0 || res[0].IsTerminated {
					t.Errorf("%q: observation %q, score %v, terminated %v", a.Content, obs, score, res[0].IsTerminated)
				}
			}
		})
	}
	after, _ := play(t, env, id, sqlAction(countQ))
	if b, a := before[0].State[0].Content, after[0].State[0].Content; a != b {
		t.Errorf("database changed: %q, then %q", b, a)
	}
}

// A runaway query is interrupted at the statement time limit; the episode
// goes on.
func TestTimeLimit(t *testing.T) {
	requireData(t)
	env, err := sqlworld.New(sqlworld.Config{StatementTimeout: 300 * time.Millisecond, TrainSize: 3, ValSize: 3, TestSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, q := range []string{
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
		"SELECT count(*) FROM languages a, languages b, languages c",
	} {
		start := time.Now()
		res, _ := play(t, env, "sql-train-0000", sqlAction(q), sqlAction("SELECT 2"))
		took := time.Since(start)
		if obs := res[0].State[0].Content; !strings.HasPrefix(obs, "error: the query was stopped after the time limit of 300ms") {
			t.Errorf("%s: observation %q", q, obs)
		}
		if got := res[1].State[0].Content; got != "2\n2\n(1 row)" {
			t.Errorf("query after the timeout: %q", got)
		}
		if took > 5*time.Second {
			t.Errorf("%s took %v", q, took)
		}
		t.Logf("%s: stopped after %v", q, took)
	}
}

func TestObservationBounds(t *testing.T) {
	requireData(t)
	env, err := sqlworld.New(sqlworld.Config{MaxRows: 5, MaxObservationBytes: 600, TrainSize: 3, ValSize: 3, TestSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res, _ := play(t, env, "sql-train-0000",
		sqlAction("SELECT * FROM languages"),
		sqlAction("SELECT printf('%.5000c', 'x') AS long, 'a|b' AS pipe"),
		sqlAction("SELECT name, name, name, name, name, name, name, name FROM subdivisions"),
	)
	first := res[0].State[0].Content
	if n := strings.Count(first, "\n"); n != 6 || !strings.HasSuffix(first, "(first 5 rows shown; the result has more)") {
		t.Errorf("row bound: %q", first)
	}
	if second := res[1].State[0].Content; len(second) > 300 || !strings.Contains(second, "…") {
		t.Errorf("cell bound: %d bytes %q", len(second), second)
	}
	if third := res[2].State[0].Content; len(third) > 600 || !strings.Contains(third, "output truncated") {
		t.Errorf("size bound: %d bytes %q", len(third), third)
	}
}

func TestActionLimit(t *testing.T) {
	env := sharedEnv(t)
	id := taskOf(t, env, "country_alpha3")
	ref, _ := env.ReferenceSQL(id)
	actions := make([]agentevolver.Message, sqlworld.DefaultMaxActions+1)
	for i := range actions {
		actions[i] = sqlAction("SELECT 1")
	}
	actions[len(actions)-1] = submitAction(ref)
	res, score := play(t, env, id, actions...)
	for i, r := range res[:len(res)-2] {
		if r.IsTerminated {
			t.Fatalf("terminated at action %d", i)
		}
	}
	last := res[len(res)-2]
	if !last.IsTerminated || last.Reward != 0 || !strings.Contains(last.State[0].Content, "limit of 10 actions") {
		t.Errorf("action %d: %+v", sqlworld.DefaultMaxActions, last)
	}
	if after := res[len(res)-1]; !after.IsTerminated || after.Reward != 0 || !strings.HasPrefix(after.State[0].Content, "error: the episode is over") || score != 0 {
		t.Errorf("after the limit: %+v, score %v", after, score)
	}
}

func TestInstanceErrors(t *testing.T) {
	env := sharedEnv(t)
	ctx := context.Background()
	if _, err := env.New(ctx, "sql-train-9999", "x", nil); !errors.Is(err, sqlworld.ErrUnknownTask) || !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("unknown task: %v", err)
	}
	if _, err := env.TaskIDs(ctx, "dev", nil); !errors.Is(err, sqlworld.ErrUnknownSplit) {
		t.Errorf("unknown split: %v", err)
	}
	if _, err := env.New(ctx, "sql-train-0000", "x", map[string]any{"sparse": 3}); !errors.Is(err, sqlworld.ErrBadParams) {
		t.Errorf("bad sparse: %v", err)
	}
	inst, err := env.New(ctx, "sql-train-0000", "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := inst.Info(ctx, nil)
	if s, _ := info.(string); err != nil || !strings.Contains(s, "subdivisions(code TEXT PRIMARY KEY") {
		t.Errorf("Info = %v, %v", info, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := inst.Step(cancelled, sqlAction("SELECT 1"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("step with a cancelled context: %v", err)
	}
	_ = inst.Close()
	if _, err := inst.Step(ctx, sqlAction("SELECT 1"), nil); !errors.Is(err, sqlworld.ErrClosed) || !errors.Is(err, envclient.ErrInstanceNotFound) {
		t.Errorf("step after close: %v", err)
	}
}

// Many instances query at once (run with -race).
func TestConcurrentInstances(t *testing.T) {
	env := sharedEnv(t)
	ids, _ := env.TaskIDs(context.Background(), sqlworld.SplitTrain, nil)
	const joinQ = "SELECT count(*) FROM subdivisions s JOIN countries c ON c.alpha_2 = s.country_code"
	first, _ := play(t, env, ids[0], sqlAction(joinQ))
	const workers = 48
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	want := first[0].State[0].Content
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 4; k++ {
				id := ids[(w*4+k)%len(ids)]
				actions, _ := env.Solve(id)
				actions = append([]agentevolver.Message{sqlAction(joinQ)}, actions...)
				res, score := play(t, env, id, actions...)
				if score != 1 || res[0].State[0].Content != want {
					errs <- fmt.Errorf("%s: score %v, first observation %q", id, score, res[0].State[0].Content)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCapabilities(t *testing.T) {
	env := sharedEnv(t)
	ctx := context.Background()
	md, err := env.TaskMetadata(ctx, "sql-val-0002")
	if err != nil || md.Difficulty != 3 {
		t.Errorf("TaskMetadata = %+v, %v; want difficulty 3", md, err)
	}
	if _, err := env.TaskMetadata(ctx, "nope"); !errors.Is(err, sqlworld.ErrUnknownTask) {
		t.Errorf("TaskMetadata(nope): %v", err)
	}
	corpus, err := env.Corpus(ctx, sqlworld.SplitVal)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 5*sqlworld.DefaultValSize; len(corpus) != want || !strings.Contains(corpus[0], "countries(alpha_2") ||
		!strings.HasPrefix(corpus[2], "```sql\nSELECT") || !strings.HasPrefix(corpus[4], "```submit\n") {
		t.Errorf("Corpus: %d documents (want %d), starting %q", len(corpus), want, corpus[:min(5, len(corpus))])
	}
	if _, err := env.Corpus(ctx, "dev"); !errors.Is(err, sqlworld.ErrUnknownSplit) {
		t.Errorf("Corpus(dev): %v", err)
	}
	p := env.Profile()
	if p.Name != sqlworld.Name || len(p.Entities) != 4 || p.Entities[1].Name != "subdivisions" || len(p.Entities[1].Attrs) != 5 {
		t.Errorf("Profile = %+v", p)
	}
	if !strings.Contains(p.Entities[0].Description, "(249 rows)") {
		t.Logf("countries description %q (another iso-codes version?)", p.Entities[0].Description)
	}
}
