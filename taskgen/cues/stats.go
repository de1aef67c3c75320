package cues

import (
	"fmt"
	"io"
	"math"
	"time"
)

// Stats summarises a run, stage by stage, computed from the output
// directory (so a resumed run counts the work of every attempt once).
type Stats struct {
	Session string       `json:"session"`
	Stage1  Stage1Stats  `json:"stage1"`
	Stage2  Stage2Stats  `json:"stage2"`
	Stage3  Stage3Stats  `json:"stage3"`
	Rewrite RewriteStats `json:"rewrite"`
	// Exported is the number of tasks in tasks.jsonl.
	Exported int `json:"exported"`
}

// Stage1Stats counts exploration.
type Stage1Stats struct {
	// Rollouts is the number configured, Finished those recorded,
	// StoppedEarly those an environment or model failure stopped.
	Rollouts     int `json:"rollouts"`
	Finished     int `json:"finished"`
	StoppedEarly int `json:"stopped_early"`
	// Triplets of finished rollouts; NoAction of them came from a reply
	// without an action.
	Triplets int `json:"triplets"`
	NoAction int `json:"no_action"`
	// AvgReward is the mean step reward, DoneRate the share of triplets
	// that ended their episode (the reference's success_rate).
	AvgReward float64 `json:"avg_reward"`
	DoneRate  float64 `json:"done_rate"`
}

// Stage2Stats counts abstraction.
type Stage2Stats struct {
	// Batches finished; NoTaskBatches of them gave no task at all (a reply
	// that parsed to no task, or a hindsight rollout that achieved
	// nothing).
	Batches       int `json:"batches"`
	NoTaskBatches int `json:"no_task_batches"`
	// Blocks parsed; Incomplete and TooLong blocks were dropped, as were
	// LowConfidence tasks.
	Blocks        int `json:"blocks"`
	Incomplete    int `json:"incomplete"`
	TooLong       int `json:"too_long"`
	LowConfidence int `json:"low_confidence"`
	// Tasks before deduplication, Kept after (Dropped = Tasks - Kept:
	// near-duplicate queries and tasks without a ground truth).
	Tasks int `json:"tasks"`
	Kept  int `json:"kept"`
	// Confidence of the kept tasks: mean, max, min and the reference's
	// bands (high >= 0.8, medium [0.5, 0.8), low < 0.5).
	AvgConfidence float64 `json:"avg_confidence"`
	MaxConfidence float64 `json:"max_confidence"`
	MinConfidence float64 `json:"min_confidence"`
	High          int     `json:"high"`
	Medium        int     `json:"medium"`
	Low           int     `json:"low"`
}

// Stage3Stats counts quality control.
type Stage3Stats struct {
	// Tasks to verify; Accepted, Rejected (judged failures), NoTrajectory,
	// Invalid and Errors (to retry) partition those done.
	Tasks        int `json:"tasks"`
	Accepted     int `json:"accepted"`
	Rejected     int `json:"rejected"`
	NoTrajectory int `json:"no_trajectory"`
	Invalid      int `json:"invalid"`
	Errors       int `json:"errors"`
	// Judged trajectories with an LLM verdict, JudgePassed of them passed;
	// EnvChecked with an environment verdict, EnvPassed passed;
	// Disagreements where both ran and differ.
	Judged        int `json:"judged"`
	JudgePassed   int `json:"judge_passed"`
	EnvChecked    int `json:"env_checked"`
	EnvPassed     int `json:"env_passed"`
	Disagreements int `json:"disagreements"`
	// SuccessRate is Accepted / (Accepted + Rejected + NoTrajectory): the
	// share of tasks that re-executed successfully.
	SuccessRate float64 `json:"success_rate"`
}

// RewriteStats counts the query rewrite.
type RewriteStats struct {
	Trajectories int `json:"trajectories"`
	Variants     int `json:"variants"`
	Missing      int `json:"missing"`
}

// Statistics computes the run's statistics from its output directory and
// writes them to statistics.json.
func (p *Pipeline) Statistics() (Stats, error) {
	s := Stats{Session: p.session}
	s.Stage1.Rollouts = p.cfg.Stage1.RolloutNum
	rs, err := p.rollouts()
	if err != nil {
		return s, err
	}
	for _, r := range rs {
		s.Stage1.Finished++
		if r.Error != "" {
			s.Stage1.StoppedEarly++
		}
	}
	ts, err := p.finishedTriplets()
	if err != nil {
		return s, err
	}
	var reward float64
	var done int
	for _, t := range ts {
		reward += t.Reward
		if t.Done {
			done++
		}
		if t.NoAction {
			s.Stage1.NoAction++
		}
	}
	s.Stage1.Triplets = len(ts)
	if len(ts) > 0 {
		s.Stage1.AvgReward, s.Stage1.DoneRate = reward/float64(len(ts)), float64(done)/float64(len(ts))
	}
	batches, err := p.loadBatches(p.batches(ts))
	if err != nil {
		return s, err
	}
	for _, b := range batches {
		s.Stage2.Batches++
		if b.NoTask() {
			s.Stage2.NoTaskBatches++
		}
		s.Stage2.Blocks += b.Report.Blocks
		s.Stage2.Incomplete += b.Report.Incomplete
		s.Stage2.TooLong += b.Report.TooLong
		s.Stage2.LowConfidence += b.LowConfidence
		s.Stage2.Tasks += len(b.Tasks)
	}
	tasks, err := p.loadTasks()
	if err != nil {
		return s, err
	}
	s.Stage2.Kept = len(tasks)
	s.Stage2.MinConfidence = math.Inf(1)
	for _, t := range tasks {
		c := t.Confidence
		s.Stage2.AvgConfidence += c
		s.Stage2.MaxConfidence = max(s.Stage2.MaxConfidence, c)
		s.Stage2.MinConfidence = min(s.Stage2.MinConfidence, c)
		switch {
		case c >= 0.8:
			s.Stage2.High++
		case c >= 0.5:
			s.Stage2.Medium++
		default:
			s.Stage2.Low++
		}
	}
	if len(tasks) > 0 {
		s.Stage2.AvgConfidence /= float64(len(tasks))
	} else {
		s.Stage2.MinConfidence = 0
	}
	if !p.cfg.Stage3.Skip {
		s.Stage3, err = p.stage3Stats(tasks)
		if err != nil {
			return s, err
		}
	}
	if p.cfg.Rewrite.Enabled {
		names, err := p.Store.ListJSON("rewrites", "rewrite_")
		if err != nil {
			return s, err
		}
		for _, n := range names {
			var r RewriteRecord
			if _, err := p.Store.ReadJSON("rewrites/"+n, &r); err != nil {
				return s, err
			}
			s.Rewrite.Trajectories++
			s.Rewrite.Variants += len(r.Variants)
			s.Rewrite.Missing += r.Missing
		}
	}
	_, err = ReadLines(p.Store, ExportJSONL, func(map[string]any) error {
		s.Exported++
		return nil
	})
	if err != nil {
		return s, err
	}
	return s, p.Store.WriteJSON("statistics.json", s)
}

func (p *Pipeline) stage3Stats(tasks []Task) (Stage3Stats, error) {
	var s Stage3Stats
	s.Tasks = len(tasks)
	for _, t := range tasks {
		var tr Trajectory
		ok, err := p.Store.ReadJSON(trajectoryFile(t.TaskID), &tr)
		if err != nil {
			return s, err
		}
		if ok {
			s.Accepted++
		} else if ok, err = p.Store.ReadJSON(rejectedFile(t.TaskID), &tr); err != nil {
			return s, err
		} else if ok {
			s.Rejected++
		}
		if ok {
			if tr.JudgeSuccess != nil {
				s.Judged++
				if *tr.JudgeSuccess {
					s.JudgePassed++
				}
			}
			if tr.EnvCheck != nil {
				s.EnvChecked++
				if tr.EnvCheck.Success {
					s.EnvPassed++
				}
			}
			if tr.Disagreement {
				s.Disagreements++
			}
			continue
		}
		var f FailedRecord
		if ok, err := p.Store.ReadJSON(failedFile(t.TaskID), &f); err != nil {
			return s, err
		} else if ok {
			switch f.Kind {
			case FailNoTrajectory:
				s.NoTrajectory++
			case FailInvalidTask:
				s.Invalid++
			default:
				s.Errors++
			}
		}
	}
	if n := s.Accepted + s.Rejected + s.NoTrajectory; n > 0 {
		s.SuccessRate = float64(s.Accepted) / float64(n)
	}
	return s, nil
}

// stage3File is the reference's trajectories/statistics.json.
type stage3File struct {
	TotalTasks       int       `json:"total_tasks"`
	Successful       int       `json:"successful"`
	Failed           int       `json:"failed"`
	Strategy1Success int       `json:"strategy1_success"`
	Strategy2Success int       `json:"strategy2_success"`
	Disagreements    int       `json:"disagreements"`
	Timestamp        time.Time `json:"timestamp"`
	SuccessRate      float64   `json:"success_rate"`
}

func (p *Pipeline) writeStage3Stats() error {
	tasks, err := p.loadTasks()
	if err != nil {
		return err
	}
	s, err := p.stage3Stats(tasks)
	if err != nil {
		return err
	}
	return p.Store.WriteJSON("trajectories/statistics.json", stage3File{
		TotalTasks: s.Tasks, Successful: s.Accepted, Failed: s.Rejected + s.NoTrajectory + s.Invalid + s.Errors,
		Strategy1Success: s.Accepted, Disagreements: s.Disagreements, Timestamp: p.Now(), SuccessRate: s.SuccessRate,
	})
}

// Print writes the statistics as a table of what each stage kept.
func (s Stats) Print(w io.Writer) {
	fmt.Fprintf(w, "session %s\n", s.Session)
	fmt.Fprintf(w, "stage 1: %d of %d rollouts finished (%d stopped early), %d triplets (%d replies without an action), done rate %.2f, mean reward %.3f\n",
		s.Stage1.Finished, s.Stage1.Rollouts, s.Stage1.StoppedEarly, s.Stage1.Triplets, s.Stage1.NoAction, s.Stage1.DoneRate, s.Stage1.AvgReward)
	fmt.Fprintf(w, "stage 2: %d batches (%d gave no task), %d blocks (%d incomplete, %d too long), %d below the confidence threshold, %d tasks -> %d after dedup (confidence mean %.2f; high %d, medium %d, low %d)\n",
		s.Stage2.Batches, s.Stage2.NoTaskBatches, s.Stage2.Blocks, s.Stage2.Incomplete, s.Stage2.TooLong, s.Stage2.LowConfidence,
		s.Stage2.Tasks, s.Stage2.Kept, s.Stage2.AvgConfidence, s.Stage2.High, s.Stage2.Medium, s.Stage2.Low)
	fmt.Fprintf(w, "stage 3: %d tasks: %d accepted, %d rejected, %d without a trajectory, %d invalid, %d errors; success rate %.2f\n",
		s.Stage3.Tasks, s.Stage3.Accepted, s.Stage3.Rejected, s.Stage3.NoTrajectory, s.Stage3.Invalid, s.Stage3.Errors, s.Stage3.SuccessRate)
	fmt.Fprintf(w, "         judge passed %d of %d, environment check passed %d of %d, %d disagreements\n",
		s.Stage3.JudgePassed, s.Stage3.Judged, s.Stage3.EnvPassed, s.Stage3.EnvChecked, s.Stage3.Disagreements)
	if s.Rewrite.Trajectories > 0 {
		fmt.Fprintf(w, "rewrite: %d trajectories, %d variants (%d missing)\n", s.Rewrite.Trajectories, s.Rewrite.Variants, s.Rewrite.Missing)
	}
	fmt.Fprintf(w, "exported: %d tasks\n", s.Exported)
}
