package taskgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/org/agentevolver"
)

// parquetRow is one task of a Parquet task file: the Task's fields as
// columns (metadata as a JSON object in a string column), confidence and
// reward optional.
type parquetRow struct {
	TaskID      string   `parquet:"task_id"`
	EnvType     string   `parquet:"env_type"`
	OpenQuery   bool     `parquet:"open_query"`
	Query       string   `parquet:"query"`
	GroundTruth string   `parquet:"ground_truth"`
	Evaluator   string   `parquet:"evaluator"`
	Metadata    string   `parquet:"metadata"`
	Confidence  *float64 `parquet:"confidence,optional"`
	Reward      *float64 `parquet:"reward,optional"`
}

// WriteParquet writes objs as a Parquet file with the columns task_id,
// env_type, open_query, query, ground_truth, evaluator, metadata (a JSON
// object as text; empty when none), confidence and reward (optional
// doubles).
func WriteParquet(w io.Writer, objs []agentevolver.TaskObjective) error {
	rows := make([]parquetRow, len(objs))
	for i, o := range objs {
		if err := checkObjective(o); err != nil {
			return fmt.Errorf("taskgen: task %d: %w", i, err)
		}
		var meta string
		if len(o.Task.Metadata) > 0 {
			b, err := json.Marshal(o.Task.Metadata)
			if err != nil {
				return fmt.Errorf("taskgen: task %d: metadata: %w", i, err)
			}
			meta = string(b)
		}
		t := o.Task
		rows[i] = parquetRow{
			TaskID: t.TaskID, EnvType: t.EnvType, OpenQuery: t.OpenQuery, Query: t.Query,
			GroundTruth: t.GroundTruth, Evaluator: t.Evaluator, Metadata: meta,
			Confidence: o.Confidence, Reward: o.Reward,
		}
	}
	if err := parquet.Write(w, rows); err != nil {
		return fmt.Errorf("taskgen: write parquet: %w", err)
	}
	return nil
}

// ReadParquet reads a Parquet task file of size bytes, as WriteParquet
// writes it. Columns are matched by name, so files from other tools with
// these columns (extra columns ignored, missing ones empty) read too. A
// malformed file is ErrTaskFile, also when the Parquet library panics on
// it.
func ReadParquet(r io.ReaderAt, size int64) (objs []agentevolver.TaskObjective, err error) {
	if size > MaxTaskFileBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTaskFile, size, MaxTaskFileBytes)
	}
	defer func() {
		if p := recover(); p != nil {
			objs, err = nil, fmt.Errorf("%w: malformed parquet: %v", ErrTaskFile, p)
		}
	}()
	if err := checkFooter(r, size); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTaskFile, err)
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTaskFile, err)
	}
	if err := checkPages(r, size, f.Metadata()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTaskFile, err)
	}
	if n := f.NumRows(); n > MaxTasksPerFile {
		return nil, fmt.Errorf("%w: %d tasks, limit %d", ErrTaskFile, n, MaxTasksPerFile)
	}
	rd := parquet.NewGenericReader[parquetRow](f)
	defer rd.Close()
	buf := make([]parquetRow, 256)
	for {
		n, rerr := rd.Read(buf)
		for _, row := range buf[:n] {
			o, err := row.objective()
			if err != nil {
				return nil, fmt.Errorf("%w: row %d: %w", ErrTaskFile, len(objs), err)
			}
			objs = append(objs, o)
		}
		if errors.Is(rerr, io.EOF) {
			return objs, nil
		}
		if rerr != nil {
			return nil, fmt.Errorf("%w: %w", ErrTaskFile, rerr)
		}
	}
}

func (row parquetRow) objective() (agentevolver.TaskObjective, error) {
	t := agentevolver.Task{
		TaskID: row.TaskID, EnvType: row.EnvType, OpenQuery: row.OpenQuery, Query: row.Query,
		GroundTruth: row.GroundTruth, Evaluator: row.Evaluator,
	}
	if row.Metadata != "" {
		if err := json.Unmarshal([]byte(row.Metadata), &t.Metadata); err != nil {
			return agentevolver.TaskObjective{}, fmt.Errorf("metadata is not a JSON object: %w", err)
		}
	}
	o := agentevolver.TaskObjective{Task: t, Confidence: row.Confidence, Reward: row.Reward}
	return o, checkObjective(o)
}
