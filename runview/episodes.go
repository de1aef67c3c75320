package runview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/org/agentevolver/runlog/episodelog"
)

// EpisodeSummary is one row of the episode list.
type EpisodeSummary struct {
	// At is the episode's byte offset in the log: its id in the API.
	At        int64   `json:"at"`
	Phase     string  `json:"phase"`
	Step      int     `json:"step"`
	TaskID    string  `json:"task_id"`
	DataID    string  `json:"data_id"`
	RolloutID string  `json:"rollout_id"`
	Outcome   float64 `json:"outcome"`
	Success   bool    `json:"success"`
	Cause     string  `json:"cause,omitempty"`
	Turns     int     `json:"turns"`
	Tokens    int     `json:"tokens"`
}

// summaryLine is the part of an episode line the index decodes.
type summaryLine struct {
	Phase     string  `json:"phase"`
	Step      int     `json:"step"`
	TaskID    string  `json:"task_id"`
	DataID    string  `json:"data_id"`
	RolloutID string  `json:"rollout_id"`
	Outcome   float64 `json:"outcome"`
	Success   bool    `json:"success"`
	Cause     string  `json:"cause"`
	Messages  []struct {
		Role string `json:"role"`
	} `json:"messages"`
	Samples []struct {
		IDs []json.RawMessage `json:"ids"`
	} `json:"samples"`
}

// Episodes is the answer of GET /api/episodes.
type Episodes struct {
	// Total is the number of episodes in the log; Matched of them pass
	// the filter; Items are Matched's page (offset, limit).
	Total   int              `json:"total"`
	Matched int              `json:"matched"`
	Items   []EpisodeSummary `json:"items"`
	// Phases, Tasks and Causes are the values the log holds, sorted, for
	// the filter's choices (Tasks capped at maxFacet).
	Phases []string `json:"phases"`
	Tasks  []string `json:"tasks"`
	Causes []string `json:"causes"`
	// Skipped counts malformed lines left out.
	Skipped int `json:"skipped"`
}

// Filter selects episodes; empty fields select all.
type Filter struct {
	Phase string
	// Task matches task ids containing it, case-insensitively.
	Task string
	// Outcome is "success", "failure" (finished without success) or
	// "failed" (failed in the environment or the policy).
	Outcome string
	Cause   string
	// Step, when HasStep, selects one step.
	Step    int
	HasStep bool
}

func (f Filter) match(e EpisodeSummary) bool {
	switch {
	case f.Phase != "" && e.Phase != f.Phase,
		f.Cause != "" && e.Cause != f.Cause,
		f.HasStep && e.Step != f.Step,
		f.Task != "" && !strings.Contains(strings.ToLower(e.TaskID), strings.ToLower(f.Task)):
		return false
	}
	switch f.Outcome {
	case "success":
		return e.Cause == "" && e.Success
	case "failure":
		return e.Cause == "" && !e.Success
	case "failed":
		return e.Cause != ""
	}
	return true
}

const maxFacet = 5000

// index is the episode list of one run's log, extended as the log grows.
type index struct {
	mu      sync.Mutex
	end     int64 // bytes indexed: just past the last complete line
	items   []EpisodeSummary
	skipped int
}

// indexes holds an index per run ID.
type indexes struct {
	mu sync.Mutex
	m  map[string]*index
}

func (x *indexes) get(id string) *index {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = map[string]*index{}
	}
	ix := x.m[id]
	if ix == nil {
		ix = &index{}
		x.m[id] = ix
	}
	return ix
}

// refresh indexes the lines added to the log since the last call; a log
// shorter than what was indexed (rewritten on resume) is indexed afresh.
// It returns a copy of the list.
func (ix *index) refresh(f *os.File) ([]EpisodeSummary, int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("runview: %w", err)
	}
	if info.Size() < ix.end {
		ix.end, ix.items, ix.skipped = 0, nil, 0
	}
	if info.Size() > ix.end {
		base := ix.end
		end, skipped, err := episodelog.Scan(io.NewSectionReader(f, base, info.Size()-base), func(off int64, line []byte) error {
			var s summaryLine
			if err := json.Unmarshal(line, &s); err != nil || s.Phase == "" {
				ix.skipped++
				return nil
			}
			e := EpisodeSummary{At: base + off, Phase: s.Phase, Step: s.Step, TaskID: s.TaskID, DataID: s.DataID, RolloutID: s.RolloutID,
				Outcome: s.Outcome, Success: s.Success, Cause: s.Cause}
			for _, m := range s.Messages {
				if m.Role == "assistant" {
					e.Turns++
				}
			}
			for _, smp := range s.Samples {
				e.Tokens += len(smp.IDs)
			}
			ix.items = append(ix.items, e)
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		ix.end = base + end
		ix.skipped += skipped
	}
	return slices.Clone(ix.items), ix.skipped, nil
}

// has reports whether an episode starts at offset at.
func (ix *index) has(at int64) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	i := sort.Search(len(ix.items), func(i int) bool { return ix.items[i].At >= at })
	return i < len(ix.items) && ix.items[i].At == at
}

// listEpisodes answers GET /api/episodes.
func listEpisodes(items []EpisodeSummary, skipped int, f Filter, offset, limit int) Episodes {
	out := Episodes{Total: len(items), Items: []EpisodeSummary{}, Skipped: skipped}
	phases, tasks, causes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, e := range items {
		phases[e.Phase] = true
		if len(tasks) < maxFacet {
			tasks[e.TaskID] = true
		}
		if e.Cause != "" {
			causes[e.Cause] = true
		}
		if !f.match(e) {
			continue
		}
		if out.Matched >= offset && len(out.Items) < limit {
			out.Items = append(out.Items, e)
		}
		out.Matched++
	}
	out.Phases, out.Tasks, out.Causes = sortedKeys(phases), sortedKeys(tasks), sortedKeys(causes)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
