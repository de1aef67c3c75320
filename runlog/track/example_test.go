package track_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/runlog/track"
)

// A run fans its metrics out to the console and to TensorBoard event
// files; the trainer adds its metrics.jsonl the same way.
func Example() {
	dir, err := os.MkdirTemp("", "track")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	m, err := track.Open([]string{track.NameConsole, track.NameTensorBoard}, track.OpenOptions{Dir: dir, Console: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	for step, reward := range []float64{0.25, 0.5} {
		rec := runlog.Record{Step: int64(step + 1), Time: t, Values: map[string]float64{"reward/mean": reward, "actor/kl": 0.01}}
		if err := m.WriteRecord(rec); err != nil {
			fmt.Println(err)
		}
	}
	if err := m.Close(); err != nil {
		fmt.Println(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, track.TensorBoardDir, "events.out.tfevents.*"))
	evs, err := track.ReadEventFile(files[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ev := range evs[1:] {
		fmt.Println("event at step", ev.Step, ev.Scalars)
	}
	// Output:
	// step:1 - actor/kl:0.01 - reward/mean:0.25
	// step:2 - actor/kl:0.01 - reward/mean:0.5
	// event at step 1 [{actor/kl 0.01} {reward/mean 0.25}]
	// event at step 2 [{actor/kl 0.01} {reward/mean 0.5}]
}

// The reference's hosted trackers are not built in; the error says how to
// plug one in.
func ExampleCheckNames() {
	fmt.Println(track.CheckNames([]string{"console", "tensorboard"}))
	fmt.Println(track.CheckNames([]string{"wandb"}))
	// Output:
	// <nil>
	// track: unknown tracker "wandb": it is a hosted service this SDK does not call; implement track.Tracker (one method) with its client and pass it in trainer.Options.Trackers
}
