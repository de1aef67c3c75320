package taskgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/org/agentevolver"
)

// Limits of a summariser's answer, which is untrusted model output.
const (
	// MaxResponseBytes bounds the part of an answer that is searched for
	// task blocks; anything after it is ignored.
	MaxResponseBytes = 1 << 20
	// MaxTaskBlocks bounds the task blocks read from one answer; later
	// blocks are ignored.
	MaxTaskBlocks = 64
	// MaxQueryBytes bounds a block's query.
	MaxQueryBytes = 8 << 10
	// MaxActionSequenceBytes bounds a block's action sequence.
	MaxActionSequenceBytes = 64 << 10
)

// The tags that delimit a task block.
const (
	taskOpenTag  = "<task>"
	taskCloseTag = "</task>"
)

// Reasons a task block is skipped, reported in ParseReport.Skipped.
var (
	// ErrBlockJSON reports a block whose body is not one JSON object.
	ErrBlockJSON = errors.New("taskgen: task block is not a JSON object")
	// ErrBlockMissingField reports a block without "query", "confidence"
	// or "action_sequence".
	ErrBlockMissingField = errors.New("taskgen: task block lacks a field")
	// ErrBlockField reports a block field of the wrong type, empty (the
	// query), too long or not finite (the confidence).
	ErrBlockField = errors.New("taskgen: bad task block field")
)

// SkippedBlock is one task block that did not become an objective.
type SkippedBlock struct {
	// Index is the block's position among the answer's blocks, from 0.
	Index int
	// Err says why; it wraps ErrBlockJSON, ErrBlockMissingField or
	// ErrBlockField.
	Err error
}

// ParseReport says what ParseTaskBlocksReport found besides the
// objectives.
type ParseReport struct {
	// Blocks is the number of task blocks examined: the objectives plus
	// the skipped blocks.
	Blocks int
	// Skipped lists the blocks that did not become objectives, in order.
	Skipped []SkippedBlock
	// Truncated reports that the answer was longer than MaxResponseBytes
	// or held more than MaxTaskBlocks blocks, and the rest was ignored.
	Truncated bool
}

// ParseTaskBlocks is ParseTaskBlocksReport without the report.
func ParseTaskBlocks(response string, seed agentevolver.Task) []agentevolver.TaskObjective {
	objs, _ := ParseTaskBlocksReport(response, seed)
	return objs
}

// ParseTaskBlocksReport reads the summariser's answer (reference §4.4):
// every <task>…</task> block (the reference's regex <task>(.*?)</task>
// with dot matching newline: the shortest body, across lines) holds a
// JSON object with "query", "confidence" and "action_sequence", and
// becomes one TaskObjective: a copy of seed with Query = query,
// OpenQuery = true, Evaluator = agentevolver.EvaluatorSynthetic and
// GroundTruth = action_sequence, with Confidence = confidence and no
// Reward. Blocks missing any of the three fields are skipped, as in the
// reference. The objectives come in block order; the report lists the
// skipped blocks and why.
//
// Deliberate differences from the reference:
//   - [BUG/QUIRK fixed] every objective is independent: its Task is a deep
//     copy of seed (Metadata copied), where the reference gives all the
//     objectives of one answer a single shared task, which ends up with
//     the last block's query and ground truth;
//   - a block that is not valid JSON is skipped and parsing goes on with
//     the next block; the reference stops at the first failure and keeps
//     only the blocks before it;
//   - types are checked: the query must be a non-blank string (an empty
//     Query means "use the environment's own query" in this SDK, so a
//     synthetic task without one would silently train on the wrong task),
//     the action sequence a string (it may be empty: FilterRealtime drops
//     such objectives later, as the reference's filter does), the
//     confidence a JSON number, a string holding a number, or null
//     (Confidence nil); a non-finite confidence skips the block and one
//     outside [0, 1] is clamped into it (the reference keeps whatever the
//     model wrote; only the filter's sorting reads it);
//   - the answer, the number of blocks and the field lengths are bounded
//     (MaxResponseBytes, MaxTaskBlocks, MaxQueryBytes,
//     MaxActionSequenceBytes): an over-long field skips its block, text
//     beyond the first two limits is ignored and the report says so.
func ParseTaskBlocksReport(response string, seed agentevolver.Task) ([]agentevolver.TaskObjective, ParseReport) {
	var rep ParseReport
	if len(response) > MaxResponseBytes {
		response = response[:MaxResponseBytes]
		rep.Truncated = true
	}
	var objs []agentevolver.TaskObjective
	for rest := response; ; {
		start := strings.Index(rest, taskOpenTag)
		if start < 0 {
			break
		}
		rest = rest[start+len(taskOpenTag):]
		end := strings.Index(rest, taskCloseTag)
		if end < 0 {
			break // no later <task> can have a closing tag either
		}
		body := rest[:end]
		rest = rest[end+len(taskCloseTag):]
		if rep.Blocks == MaxTaskBlocks {
			rep.Truncated = true
			break
		}
		idx := rep.Blocks
		rep.Blocks++
		b, err := parseBlock(body)
		if err != nil {
			rep.Skipped = append(rep.Skipped, SkippedBlock{Index: idx, Err: fmt.Errorf("task block %d: %w", idx, err)})
			continue
		}
		t := cloneTask(seed)
		t.Query = b.query
		t.OpenQuery = true
		t.Evaluator = agentevolver.EvaluatorSynthetic
		t.GroundTruth = b.actionSequence
		objs = append(objs, agentevolver.TaskObjective{Task: t, Confidence: b.confidence})
	}
	return objs, rep
}

type taskBlock struct {
	query          string
	confidence     *float64
	actionSequence string
}

func parseBlock(body string) (taskBlock, error) {
	var b taskBlock
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return b, fmt.Errorf("%w: %w", ErrBlockJSON, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return b, fmt.Errorf("%w: text after the object", ErrBlockJSON)
	}
	if fields == nil {
		return b, fmt.Errorf("%w: null", ErrBlockJSON)
	}
	for _, k := range []string{"query", "confidence", "action_sequence"} {
		if _, ok := fields[k]; !ok {
			return b, fmt.Errorf("%w: %q", ErrBlockMissingField, k)
		}
	}
	if err := json.Unmarshal(fields["query"], &b.query); err != nil || isNull(fields["query"]) {
		return b, fmt.Errorf("%w: query is not a string", ErrBlockField)
	}
	switch {
	case strings.TrimSpace(b.query) == "":
		return b, fmt.Errorf("%w: query is empty", ErrBlockField)
	case len(b.query) > MaxQueryBytes:
		return b, fmt.Errorf("%w: query of %d bytes, more than %d", ErrBlockField, len(b.query), MaxQueryBytes)
	}
	if err := json.Unmarshal(fields["action_sequence"], &b.actionSequence); err != nil || isNull(fields["action_sequence"]) {
		return b, fmt.Errorf("%w: action_sequence is not a string", ErrBlockField)
	}
	if len(b.actionSequence) > MaxActionSequenceBytes {
		return b, fmt.Errorf("%w: action_sequence of %d bytes, more than %d", ErrBlockField, len(b.actionSequence), MaxActionSequenceBytes)
	}
	conf, err := parseConfidence(fields["confidence"])
	if err != nil {
		return b, err
	}
	b.confidence = conf
	return b, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// parseConfidence reads a confidence: a number, a string holding a number,
// or null (nil); finite, clamped into [0, 1].
func parseConfidence(raw json.RawMessage) (*float64, error) {
	if isNull(raw) {
		return nil, nil
	}
	var text string
	var num json.Number
	if err := json.Unmarshal(raw, &num); err == nil {
		text = num.String()
	} else if err := json.Unmarshal(raw, &text); err != nil {
		return nil, fmt.Errorf("%w: confidence is not a number", ErrBlockField)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: confidence %.40q is not a finite number", ErrBlockField, text)
	}
	f = min(max(f, 0), 1)
	return &f, nil
}
