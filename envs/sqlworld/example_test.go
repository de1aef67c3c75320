package sqlworld_test

import (
	"context"
	"fmt"
	"log"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/sqlworld"
)

// The expert plays a task: it runs the reference query, sees the result
// and submits the same query as its answer. The example uses the excerpt
// of iso-codes in testdata so that it runs anywhere; the default DataDir
// is Debian's full set.
func ExampleEnv_Solve() {
	ctx := context.Background()
	env, err := sqlworld.New(sqlworld.Config{DataDir: "testdata/iso-codes", TrainSize: 3, ValSize: 1, TestSize: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()
	const id = "sql-train-0001"
	inst, err := env.New(ctx, id, "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("question:", init.State[1].Content)
	actions, err := env.Solve(id)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n-> %s\n", a.Content, res.State[0].Content)
		if res.IsTerminated {
			fmt.Println("reward:", res.Reward)
		}
	}
	// Output:
	// question: How many languages have a name starting with 'Fi'?
	// ```sql
	// SELECT count(*) FROM languages WHERE substr(name, 1, 2) = 'Fi'
	// ```
	// -> count(*)
	// 1
	// (1 row)
	// ```submit
	// SELECT count(*) FROM languages WHERE substr(name, 1, 2) = 'Fi'
	// ```
	// -> answer submitted (1 row); the episode is over
	// reward: 1
}

// Failing and refused queries are observations; the episode goes on.
func ExampleInstance_Step() {
	ctx := context.Background()
	env, err := sqlworld.New(sqlworld.Config{DataDir: "testdata/iso-codes", TrainSize: 3, ValSize: 1, TestSize: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()
	inst, err := env.New(ctx, "sql-train-0000", "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close()
	for _, q := range []string{
		"SELECT alpha_2, name, numeric_code FROM countries ORDER BY numeric_code",
		"SELECT name FROM country",
		"DROP TABLE countries",
	} {
		res, err := inst.Step(ctx, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```sql\n" + q + "\n```"}, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.State[0].Content)
	}
	// Output:
	// alpha_2 | name | numeric_code
	// DK | Denmark | 208
	// FI | Finland | 246
	// IS | Iceland | 352
	// NO | Norway | 578
	// SE | Sweden | 752
	// (5 rows)
	// error: no such table: country
	// error: only SELECT queries are allowed (SELECT ... or WITH ... SELECT ...); DROP statements are refused: the database is read-only
}
