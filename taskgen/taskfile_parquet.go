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
//
// The writer refuses, with an error wrapping ErrTooLarge, a file that
// ReadParquet would refuse: more than MaxTasksPerFile tasks, a string value
// (a column of one task) over MaxParquetValueBytes, or a file over
// MaxTaskFileBytes.
func WriteParquet(w io.Writer, objs []agentevolver.TaskObjective) error {
	if len(objs) > MaxTasksPerFile {
		return fmt.Errorf("taskgen: %w: %d tasks, limit %d", ErrTooLarge, len(objs), MaxTasksPerFile)
	}
	rows := make([]parquetRow, len(objs))
	var total int64
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
		for _, c := range []struct{ name, v string }{{"task_id", t.TaskID}, {"env_type", t.EnvType}, {"query", t.Query},
			{"ground_truth", t.GroundTruth}, {"evaluator", t.Evaluator}, {"metadata", meta}} {
			if len(c.v) > MaxParquetValueBytes {
				return fmt.Errorf("taskgen: %w: task %d (%.64q): %s of %d bytes, limit %d",
					ErrTooLarge, i, t.TaskID, c.name, len(c.v), MaxParquetValueBytes)
			}
			total += int64(len(c.v))
		}
		if total > MaxTaskFileBytes {
			return fmt.Errorf("taskgen: %w: more than %d bytes of tasks", ErrTooLarge, int64(MaxTaskFileBytes))
		}
		rows[i] = parquetRow{
			TaskID: t.TaskID, EnvType: t.EnvType, OpenQuery: t.OpenQuery, Query: t.Query,
			GroundTruth: t.GroundTruth, Evaluator: t.Evaluator, Metadata: meta,
			Confidence: o.Confidence, Reward: o.Reward,
		}
	}
	cw := &countingWriter{w: w}
	// Not parquet.Write: it passes its *WriterConfig on as an option, and
	// merging that into the defaults turns DataPageStatistics back on
	// (parquet-go v0.32.0 ORs the two booleans).
	pw := parquet.NewGenericWriter[parquetRow](cw, parquetWriterOptions...)
	if _, err := pw.Write(rows); err != nil {
		return fmt.Errorf("taskgen: write parquet: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("taskgen: write parquet: %w", err)
	}
	if cw.n > MaxTaskFileBytes {
		return fmt.Errorf("taskgen: %w: a parquet file of %d bytes, limit %d", ErrTooLarge, cw.n, int64(MaxTaskFileBytes))
	}
	return nil
}

// parquetWriterOptions keep every page header and the footer small,
// whatever the values, so that the files pass checkPages' bound on page
// headers (maxPageHeaderBytes) and stay readable by any tool:
//
//   - No statistics in data page headers (and, should a later version
//     of parquet-go merge the options differently, none for the string
//     columns in particular). parquet-go copies a page's min
//     and max values into its header untruncated (twice: the deprecated
//     and the current fields), so a 17 KB query made a header over the
//     64 KiB the reader accepts, and a 50 MB one a 200 MB header. Page
//     statistics only serve query engines that skip pages; a task file is
//     always read whole.
//   - No min/max bounds for the string columns in the footer's column
//     chunk statistics (SkipPageBounds), which parquet-go does not
//     truncate either. The column index keeps its truncated bounds only
//     for the other columns.
//   - At most maxPageValues rows per row group, so that no page holds more
//     values than the reader accepts (a page of booleans otherwise holds
//     two million).
//
// Disabling the statistics at the source is the robust fix: raising the
// reader's header bound to fit them would have to allow headers as large
// as the largest value, which is the allocation an untrusted file must not
// be able to ask for.
var parquetWriterOptions = []parquet.WriterOption{
	parquet.DataPageStatistics(false),
	parquet.SkipPageStatistics("task_id"),
	parquet.SkipPageStatistics("env_type"),
	parquet.SkipPageStatistics("query"),
	parquet.SkipPageStatistics("ground_truth"),
	parquet.SkipPageStatistics("evaluator"),
	parquet.SkipPageStatistics("metadata"),
	parquet.SkipPageBounds("task_id"),
	parquet.SkipPageBounds("env_type"),
	parquet.SkipPageBounds("query"),
	parquet.SkipPageBounds("ground_truth"),
	parquet.SkipPageBounds("evaluator"),
	parquet.SkipPageBounds("metadata"),
	parquet.MaxRowsPerRowGroup(maxPageValues),
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
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
