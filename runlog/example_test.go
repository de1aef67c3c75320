package runlog_test

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/org/agentevolver/runlog"
)

func ExamplePassAtK() {
	// 5 rollouts of a task, 2 of them successful.
	for _, k := range []int{1, 2, 3, 4} {
		p, err := runlog.PassAtK(5, 2, k)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("pass@%d = %.2f\n", k, p)
	}
	_, err := runlog.PassAtK(5, 2, 6)
	fmt.Println(err)
	// Output:
	// pass@1 = 0.40
	// pass@2 = 0.70
	// pass@3 = 0.90
	// pass@4 = 1.00
	// runlog: k must satisfy 1 <= k <= n: n=5 k=6
}

func ExampleValidate() {
	ok := runlog.Rollout{Score: 1, Success: true}
	fail := runlog.Rollout{Score: 0}
	stats, err := runlog.Validate([][]runlog.Rollout{
		{ok, fail, fail, fail}, // solved once in four tries
		{ok, ok, ok, ok},
		{fail, fail, fail, fail},
	}, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("success %.3f  avg@4 %.3f  best@4 %.3f  pass@4 %.3f\n",
		stats.Success, stats.AvgAtK, stats.BestAtK, stats.PassAtK)
	// Output:
	// success 0.417  avg@4 0.417  best@4 0.667  pass@4 0.667
}

func ExampleMetricsWriter() {
	w := runlog.NewMetricsWriterTo(os.Stdout)
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	w.WriteRecord(runlog.Record{Step: 1, Time: at, Values: map[string]float64{"reward/mean": 0.25, "loss": math.NaN()}})
	w.WriteRecord(runlog.Record{Step: 2, Time: at.Add(time.Second), Values: map[string]float64{"reward/mean": 0.5, "val/success": 0.375}})
	// Output:
	// {"step":1,"time":"2026-01-02T15:04:05Z","loss":null,"reward/mean":0.25}
	// {"step":2,"time":"2026-01-02T15:04:06Z","reward/mean":0.5,"val/success":0.375}
}

func ExampleSummary_WriteTable() {
	s := runlog.Summary{
		Seed: 7, RLSteps: 40, WallSeconds: 112,
		ValSuccessWarmStart: 0.25, ValSuccessFinal: 0.625,
		Phases: []runlog.Phase{
			{Name: "warm start", Stats: runlog.ValidationStats{Tasks: 16, K: 4, Success: 0.25, AvgAtK: 0.25, BestAtK: 0.4375, PassAtK: 0.4375}},
			{Name: "final", Stats: runlog.ValidationStats{Tasks: 16, K: 4, Success: 0.625, AvgAtK: 0.625, BestAtK: 0.8125, PassAtK: 0.8125}},
		},
	}
	s.WriteTable(os.Stdout)
	// Output:
	// seed 7   rl steps 40   wall 1m52s
	//
	// phase       tasks  val success  avg@4  best@4  pass@4
	// warm start  16     25.0%        25.0%  43.8%   43.8%
	// final       16     62.5%        62.5%  81.2%   81.2%
}

func ExampleProgress() {
	// Standard output is not a terminal under go test, so Progress writes
	// plain lines: at the first update and at Finish.
	p := runlog.NewProgress(os.Stdout, 3, runlog.ProgressOptions{Description: "rollouts", PlainInterval: time.Hour})
	for range 3 {
		p.Add(1)
	}
	p.Finish()
}
