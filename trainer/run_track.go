package trainer

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/runlog/episodelog"
	"github.com/org/agentevolver/runlog/track"
)

// openTrackers fans the metrics out to the trackers trainer.logger names
// (metrics.jsonl always first) and Options.Trackers, and opens the
// episode log unless trainer.episode_log.disable.
func (r *run) openTrackers(opts Options, resumed bool) error {
	names := []string{track.NameJSONL}
	for _, n := range r.cfg.Trainer.Logger {
		if n != track.NameJSONL {
			names = append(names, n)
		}
	}
	opened, err := track.Open(names, track.OpenOptions{
		Dir: r.dir, JSONL: r.metrics, Console: r.out,
		Resume: resumed, ResumeStep: int64(r.state.Step),
	})
	if err != nil {
		return fmt.Errorf("trainer: trackers: %w", err)
	}
	r.opened = opened
	r.trackers = &track.Multi{Trackers: append(slices.Clone(opened.Trackers), opts.Trackers...)}
	if ec := r.cfg.Trainer.EpisodeLog; !ec.Disable {
		path := filepath.Join(r.dir, episodelog.FileName)
		if resumed {
			r.episodes, err = episodelog.OpenForResume(path, r.state.Step, ec)
		} else {
			r.episodes, err = episodelog.Create(path, ec)
		}
		if err != nil {
			return fmt.Errorf("trainer: episode log: %w", err)
		}
	}
	return nil
}

// closeTrackers closes what openTrackers opened (metrics.jsonl included;
// closing it twice is harmless) and syncs the caller's trackers.
func (r *run) closeTrackers() {
	if r.trackers != nil {
		if err := r.trackers.Sync(); err != nil {
			r.log.Warn("trainer: syncing trackers", "err", err)
		}
	}
	if r.opened != nil {
		if err := r.opened.Close(); err != nil {
			r.log.Warn("trainer: closing trackers", "err", err)
		}
	}
	if r.episodes != nil {
		if err := r.episodes.Close(); err != nil {
			r.log.Warn("trainer: closing the episode log", "err", err)
		}
	}
}

// recordEpisodes writes a phase's episodes to the episode log: the
// finished ones trainer.episode_log samples and every failed one, within
// its per-step cap. The log is a record for people, not an input of the
// run: a write error stops recording with a warning and training goes on.
func (r *run) recordEpisodes(phase string, step int, results []agentflow.Result, failures []*agentflow.RolloutError) {
	if r.episodes == nil {
		return
	}
	if phase == "rl" {
		phase = episodelog.PhaseTrain
	}
	cfg := r.cfg.Trainer.EpisodeLog
	now := time.Now()
	var decode func(int) string
	if !cfg.NoTokens && r.tok != nil {
		pieces := map[int]string{}
		decode = func(id int) string {
			p, ok := pieces[id]
			if !ok {
				var err error
				if p, err = r.tok.Decode([]int{id}); err != nil {
					p = "\ufffd"
				}
				pieces[id] = p
			}
			return p
		}
	}
	var err error
	for i, res := range results {
		if err != nil {
			break
		}
		if cfg.Sampled(phase, step, i) {
			_, err = r.episodes.Write(episodelog.FromTrajectory(phase, step, now, res.Trajectory, res.Samples, decode))
		}
	}
	for _, re := range failures {
		if err != nil {
			break
		}
		cause := cmp.Or(agentflow.CauseOf(re.Err), FailureCauseOther)
		_, err = r.episodes.Write(episodelog.Failure(phase, step, now, re.TaskID, re.DataID, re.RolloutID, string(cause), re.Err.Error()))
	}
	if err != nil {
		if errors.Is(err, episodelog.ErrFull) {
			r.log.Info("trainer: the episode log is full; later episodes are not recorded", "step", step, "max_bytes", cfg.MaxBytes)
		} else {
			r.log.Warn("trainer: episode log; later episodes are not recorded", "err", err)
		}
		_ = r.episodes.Close()
		r.episodes = nil
	}
}
