package episodelog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/runlog/episodelog"
)

// Record an episode with its token view and read the log back.
func Example() {
	dir, _ := os.MkdirTemp("", "episodes")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, episodelog.FileName)
	w, err := episodelog.Create(path, episodelog.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := agentevolver.Trajectory{TaskID: "t7", DataID: "0", RolloutID: "0",
		Steps:  []agentevolver.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "ok"}},
		Reward: agentevolver.NewReward(1, "", 0)}
	sample := agentevolver.Sample{PromptIDs: []int{10}, ResponseIDs: []int{11, 12},
		InputIDs: []int{10, 11, 12}, LossMask: []int{0, 1, 1}}
	vocab := map[int]string{10: "hi", 11: "o", 12: "k"}
	ep := episodelog.FromTrajectory(episodelog.PhaseTrain, 1, time.Now(), tr, []agentevolver.Sample{sample}, func(id int) string { return vocab[id] })
	if _, err := w.Write(ep); err != nil {
		fmt.Println(err)
	}
	if _, err := w.Write(episodelog.Failure(episodelog.PhaseTrain, 1, time.Now(), "t8", "1", "0", "step", "env crashed")); err != nil {
		fmt.Println(err)
	}
	w.Close()

	f, _ := os.Open(path)
	defer f.Close()
	_, _, err = episodelog.Scan(f, func(_ int64, line []byte) error {
		ep, err := episodelog.Decode(line)
		if err != nil {
			return err
		}
		if ep.Failed() {
			fmt.Printf("%s failed: %s (%s)\n", ep.TaskID, ep.Cause, ep.Error)
			return nil
		}
		s := ep.Samples[0]
		fmt.Printf("%s outcome %v: tokens %q mask %s\n", ep.TaskID, ep.Outcome, s.Text, s.Mask)
		return nil
	})
	fmt.Println(err)
	// Output:
	// t7 outcome 1: tokens ["hi" "o" "k"] mask 011
	// t8 failed: step (env crashed)
	// <nil>
}
