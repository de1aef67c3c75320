package cues

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/taskgen"
)

// Batch is what tasks/batches/<batch>.json holds: one finished Stage-2
// batch.
type Batch struct {
	Batch    string   `json:"batch"`
	EnvID    string   `json:"env_id"`
	Triplets []string `json:"triplets"`
	// Reply is the abstractor's reply (LLM method).
	Reply string `json:"reply,omitempty"`
	// Report is what the parser found.
	Report TaskParseReport `json:"report"`
	// LowConfidence counts parsed tasks below the confidence threshold.
	LowConfidence int `json:"low_confidence"`
	// NothingAchieved reports a hindsight batch whose actions achieved
	// nothing the environment could make a task of.
	NothingAchieved bool `json:"nothing_achieved,omitempty"`
	// Tasks are the batch's tasks before deduplication.
	Tasks []Task `json:"tasks"`
}

// NoTask reports a batch whose reply parsed to no task at all.
func (b Batch) NoTask() bool { return len(b.Tasks) == 0 && b.LowConfidence == 0 }

func (p *Pipeline) tasksFile() string { return "tasks/tasks_" + p.session + ".jsonl" }

// batches cuts the finished triplets into Stage-2 batches: by rollout for
// the hindsight method, else grouped by environment task (in first-seen
// order) and cut into BatchSize runs.
func (p *Pipeline) batches(ts []Triplet) [][]Triplet {
	var groups [][]Triplet
	index := map[string]int{}
	for _, t := range ts {
		key := t.EnvID
		if p.cfg.Stage2.Method == AbstractHindsight {
			key = fmt.Sprint(t.Rollout)
		}
		g, ok := index[key]
		if !ok {
			g = len(groups)
			index[key] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], t)
	}
	if p.cfg.Stage2.Method == AbstractHindsight {
		return groups
	}
	var out [][]Triplet
	for _, g := range groups {
		for i := 0; i < len(g); i += p.cfg.Stage2.BatchSize {
			out = append(out, g[i:min(len(g), i+p.cfg.Stage2.BatchSize)])
		}
	}
	return out
}

func batchKey(ts []Triplet) string {
	parts := make([]any, len(ts))
	for i, t := range ts {
		parts[i] = t.TripletID
	}
	return "batch_" + idOf(parts...)
}

// Abstract is Stage 2, task abstraction (reference §2.8): it turns the
// finished triplets into batches and each batch into tasks, keeps those
// at or above MinConfidence, writes each finished batch to
// tasks/batches/, and then deduplicates all of them (confidence first; a
// query whose word Jaccard similarity with a kept one is at least 0.8, or
// a task without an action sequence, is dropped) into the session's task
// file. Batches of one environment task run in order (each sees the tasks
// of the ones before as its task memory); different environment tasks
// run Workers at a time. A resumed run reuses finished batches. A batch
// whose model call fails is not recorded, and Abstract returns an error
// after the others: run again to resume. Unlike the reference, which
// saves tasks before deduplication into its task file, the task file
// holds the deduplicated tasks only (the batch files keep the rest).
func (p *Pipeline) Abstract(ctx context.Context) error {
	ts, err := p.finishedTriplets()
	if err != nil {
		return err
	}
	batches := p.batches(ts)
	// Group the batches of each environment task, in order.
	var envs [][][]Triplet
	index := map[string]int{}
	for _, b := range batches {
		e, ok := index[b[0].EnvID]
		if !ok || p.cfg.Stage2.Method == AbstractHindsight {
			e = len(envs)
			index[b[0].EnvID] = e
			envs = append(envs, nil)
		}
		envs[e] = append(envs[e], b)
	}
	bar := p.progress("stage 2: batches", len(batches))
	var mu sync.Mutex
	var errs []error
	err = parallel.ForEach(ctx, len(envs), p.cfg.Workers, func(e int) {
		var previous []Task
		for _, b := range envs[e] {
			batch, err := p.batch(ctx, b, previous)
			if err != nil {
				if ctx.Err() == nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					p.Logger.Warn("cues: stage 2 batch failed", "env_id", b[0].EnvID, "err", err)
				}
				return
			}
			previous = append(previous, batch.Tasks...)
			bar.Add(1)
		}
	})
	bar.Finish()
	if err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%d batches failed (run again to resume): %w", len(errs), err)
	}
	all, err := p.loadBatches(batches)
	if err != nil {
		return err
	}
	var tasks []Task
	for _, b := range all {
		tasks = append(tasks, b.Tasks...)
	}
	kept := dedup(tasks)
	return fsutil.WriteFileAtomic(p.Store.Path(p.tasksFile()), func(w io.Writer) error {
		return writeLines(w, kept)
	})
}

// dedup is the reference's filter (§2.8.3) through taskgen.SelectRealtime.
func dedup(tasks []Task) []Task {
	cands := make([]taskgen.Candidate, len(tasks))
	for i, t := range tasks {
		c := t.Confidence
		cands[i] = taskgen.Candidate{Query: t.Query, Confidence: &c, Eligible: strings.TrimSpace(t.GT) != ""}
	}
	var out []Task
	for _, i := range taskgen.SelectRealtime(cands) {
		out = append(out, tasks[i])
	}
	return out
}

// loadBatches reads the finished batch files of batches, in order.
func (p *Pipeline) loadBatches(batches [][]Triplet) ([]Batch, error) {
	var out []Batch
	for _, b := range batches {
		var batch Batch
		ok, err := p.Store.ReadJSON("tasks/batches/"+batchKey(b)+".json", &batch)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, batch)
		}
	}
	return out, nil
}

// batch abstracts one batch, or reads it back when it is finished.
func (p *Pipeline) batch(ctx context.Context, ts []Triplet, previous []Task) (Batch, error) {
	key := batchKey(ts)
	rel := "tasks/batches/" + key + ".json"
	var b Batch
	if ok, err := p.Store.ReadJSON(rel, &b); err != nil || ok {
		return b, err
	}
	b = Batch{Batch: key, EnvID: ts[0].EnvID, Tasks: []Task{}}
	for _, t := range ts {
		b.Triplets = append(b.Triplets, t.TripletID)
	}
	var parsed []ParsedTask
	var checkIDs []string
	if p.cfg.Stage2.Method == AbstractHindsight {
		actions := make([]agentevolver.Message, len(ts))
		for i, t := range ts {
			actions[i] = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: t.Action}
		}
		task, err := p.synth.SynthesizeTask(ctx, ts[0].EnvID, actions)
		switch {
		case errors.Is(err, envservice.ErrNothingAchieved):
			b.NothingAchieved = true
		case err != nil:
			return b, fmt.Errorf("hindsight task of %s: %w", ts[0].EnvID, err)
		default:
			b.Report.Blocks = 1
			parsed = append(parsed, ParsedTask{Description: "hindsight: what rollout " + fmt.Sprint(ts[0].Rollout) + " achieved",
				Query: task.Query, Confidence: 1, GT: task.GroundTruth})
			checkIDs = append(checkIDs, task.TaskID)
		}
	} else {
		desc, err := p.Store.ReadText("env_init/" + safeName(ts[0].EnvID) + ".txt")
		if err != nil {
			return b, err
		}
		reply, err := p.chat(ctx, chatMessages(AbstractionSystemPrompt, AbstractionUserPrompt(desc, ts, TaskMemory(previous))), 0, p.seedOf("abstract", key))
		if err != nil {
			return b, err
		}
		b.Reply = reply
		parsed, b.Report = ParseTasks(reply)
	}
	for k, pt := range parsed {
		if pt.Confidence < p.cfg.Stage2.MinConfidence {
			b.LowConfidence++
			continue
		}
		t := Task{
			TaskID: idOf("task", key, k), EnvID: ts[0].EnvID, EnvType: p.cfg.EnvType, SessionID: p.session,
			Description: pt.Description, Query: pt.Query, SourceTriplets: slices.Clone(b.Triplets),
			Confidence: pt.Confidence, Timestamp: p.Now(), GT: pt.GT, Batch: key, Origin: OriginLLM,
		}
		if p.cfg.Stage2.Method == AbstractHindsight {
			t.Origin, t.CheckTaskID = OriginHindsight, checkIDs[k]
		}
		b.Tasks = append(b.Tasks, t)
	}
	return b, p.Store.WriteJSON(rel, b)
}

// loadTasks reads the session's deduplicated tasks.
func (p *Pipeline) loadTasks() ([]Task, error) {
	var out []Task
	bad, err := ReadLines(p.Store, p.tasksFile(), func(t Task) error {
		out = append(out, t)
		return nil
	})
	if err == nil && bad > 0 {
		err = fmt.Errorf("%s: %d unreadable lines", p.tasksFile(), bad)
	}
	return out, err
}
