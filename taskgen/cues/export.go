package cues

import (
	"context"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/taskgen"
)

// Files the export writes under the output directory.
const (
	ExportJSONL   = "tasks.jsonl"
	ExportParquet = "tasks.parquet"
)

// Provenance is the metadata["cues"] of an exported task.
type Provenance struct {
	TaskID         string   `json:"task_id"`
	Session        string   `json:"session"`
	EnvID          string   `json:"env_id"`
	Origin         string   `json:"origin"`
	Description    string   `json:"description"`
	SourceTriplets []string `json:"source_triplets"`
	Judge          *bool    `json:"judge,omitempty"`
	EnvCheck       string   `json:"env_check,omitempty"`
	// RewriteOf is the original query of a rewrite variant.
	RewriteOf string `json:"rewrite_of,omitempty"`
	// Verified reports whether Stage 3 accepted the task (false only when
	// stage3.skip exported it unchecked).
	Verified bool `json:"verified"`
}

// Objective turns an accepted task into the task a trainer reads (the
// mapping the reference leaves to a port, §2.12): the environment task
// id, the CuES query replacing the environment's instruction, the ground
// truth for graders that judge against one, evaluator
// agentevolver.EvaluatorSynthetic (an LLM grader) and the provenance in
// metadata["cues"]. A task whose re-execution the environment verified by
// hindsight is exported as that hindsight task instead (its id rebuilds
// it, evaluator env): training on it earns the environment's own reward.
func Objective(t Task, tr *Trajectory, query string) agentevolver.TaskObjective {
	prov := Provenance{TaskID: t.TaskID, Session: t.SessionID, EnvID: t.EnvID, Origin: t.Origin,
		Description: t.Description, SourceTriplets: t.SourceTriplets}
	task := agentevolver.Task{TaskID: t.EnvID, EnvType: t.EnvType, OpenQuery: true, Query: query,
		GroundTruth: t.GT, Evaluator: agentevolver.EvaluatorSynthetic}
	if query != t.Query {
		prov.RewriteOf = t.Query
	}
	if tr != nil {
		prov.Verified, prov.Judge = tr.Success, tr.JudgeSuccess
		if c := tr.EnvCheck; c != nil {
			prov.EnvCheck = c.Method
			if c.Success && c.Method == CheckHindsight && c.TaskID != "" {
				task.TaskID, task.Evaluator = c.TaskID, agentevolver.EvaluatorEnv
			}
		}
	}
	task.Metadata = map[string]any{"cues": prov}
	conf := t.Confidence
	return agentevolver.TaskObjective{Task: task, Confidence: &conf}
}

// Export writes the accepted tasks (every deduplicated task when Stage 3
// is skipped), and with Rewrite.Export their rewrite variants, to
// tasks.jsonl and tasks.parquet, the task files train reads
// (task_manager.train_data_path). It is rewritten whole on every run.
func (p *Pipeline) Export(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var objs []agentevolver.TaskObjective
	if p.cfg.Stage3.Skip {
		tasks, err := p.loadTasks()
		if err != nil {
			return err
		}
		for _, t := range tasks {
			objs = append(objs, Objective(t, nil, t.Query))
		}
	} else {
		trs, err := p.accepted()
		if err != nil {
			return err
		}
		for i := range trs {
			tr := &trs[i]
			objs = append(objs, Objective(tr.Task, tr, tr.Task.Query))
			if !p.cfg.Rewrite.Export {
				continue
			}
			var rec RewriteRecord
			if _, err := p.Store.ReadJSON(rewriteFile(tr.TaskID), &rec); err != nil {
				return err
			}
			for _, v := range rec.Variants {
				objs = append(objs, Objective(tr.Task, tr, v))
			}
		}
	}
	if objs == nil {
		objs = []agentevolver.TaskObjective{}
	}
	for _, f := range []string{ExportJSONL, ExportParquet} {
		if err := taskgen.WriteTaskFile(p.Store.Path(f), objs); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}
