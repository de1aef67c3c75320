package attribution

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/org/agentevolver"
)

// JudgeRecord is the record of one judged sample, the reference's
// EvaluationRecord (semantic_attribution.py) that it writes when
// attribution_driven_credit_assignment.llm_evaluation_log_dir is set. The
// JSON names are the reference's; TaskID, Source, Error and Calls are
// ours. Epoch (the reference's "train.<epoch>.<batch>") is not kept: RL
// steps here are not grouped in epochs.
type JudgeRecord struct {
	// SampleIdx is the sample's index in the step's batch.
	SampleIdx int `json:"sample_idx"`
	// Query is Episode.Query, the prompt text the policy saw.
	Query string `json:"query"`
	// Rollout is the response as text: the steps' actions and
	// observations in order, joined by newlines (the reference decodes the
	// response ids, which gives the same text without the role headers).
	Rollout string `json:"rollout"`
	// Steps are the steps as the reference writes them: the action, then
	// "\n\n[OBSERVATION]\n" and the observation when there is one, both
	// trimmed.
	Steps []string `json:"steps"`
	// OverallScore is the score the prompt showed, RescaleScore(Outcome).
	OverallScore float64 `json:"overall_score"`
	// LLMInputMessages is the prompt sent (Judgment.Prompt), empty for a
	// judge without a model.
	LLMInputMessages []agentevolver.Message `json:"llm_input_messages"`
	// LLMRawOutput is the answer (Judgment.Response), or "ERROR: " and the
	// error when no usable answer came, as in the reference.
	LLMRawOutput string `json:"llm_raw_output"`
	// LLMParsedResults are the labels used, true for GOOD (the fallback's
	// when judging failed).
	LLMParsedResults []bool `json:"llm_parsed_results"`
	// ResponseTime is Judgment.Elapsed in seconds.
	ResponseTime float64 `json:"response_time"`
	// Timestamp is when the record was made, in Unix seconds.
	Timestamp float64 `json:"timestamp"`
	// ModelName names the judge model (JudgeRecordOptions.ModelName).
	ModelName string `json:"model_name"`
	// EvaluationType is "api" for a judge model, "oracle" for a step
	// oracle (JudgeRecordOptions.EvaluationType).
	EvaluationType string `json:"evaluation_type"`
	// GlobalStep is the RL step, counted from 1 as the reference's
	// global_steps.
	GlobalStep int `json:"global_step"`
	// TaskID is Episode.TaskID.
	TaskID string `json:"task_id"`
	// Source is the Judgment's Source: "judged" or "fallback".
	Source string `json:"source"`
	// Error is Judgment.Err, empty when none.
	Error string `json:"error,omitempty"`
	// Calls is Judgment.Calls.
	Calls int `json:"calls"`
	// Metadata is the reference's _metadata block.
	Metadata JudgeRecordMetadata `json:"_metadata"`
}

// JudgeRecordMetadata is the _metadata block of a JudgeRecord, as the
// reference writes it.
type JudgeRecordMetadata struct {
	SaveTime      float64 `json:"save_time"`
	StepDirectory string  `json:"step_directory"`
	FileName      string  `json:"file_name"`
	FullPath      string  `json:"full_path"`
	NumSteps      int     `json:"num_steps"`
}

// JudgeRecordOptions describe the judge in the records of
// WriteJudgeRecords.
type JudgeRecordOptions struct {
	// ModelName names the judge model; empty for a judge without one.
	ModelName string
	// EvaluationType is written as evaluation_type; empty means "api".
	EvaluationType string
	// Now gives the records' times; nil means time.Now.
	Now func() time.Time
}

// WriteJudgeRecords writes one JudgeRecord per judged sample of a batch
// (judgments[i] belongs to episodes[i]) under dir, where the reference
// writes them: dir/step_NNNNNN/stepNNNNNN_sampleIII_<unix time with
// three decimals, '.' written '_'>.json, indented, NNNNNN being
// globalStep. Skipped episodes get no record, as the reference decides to
// skip before it would write one; fallbacks do. It creates the
// directories and returns the paths written; a record that cannot be
// written does not stop the others, and the failures come back joined.
func WriteJudgeRecords(dir string, globalStep int, episodes []Episode, judgments []Judgment, opts JudgeRecordOptions) ([]string, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	evalType := opts.EvaluationType
	if evalType == "" {
		evalType = "api"
	}
	stepDir := fmt.Sprintf("step_%06d", globalStep)
	full := filepath.Join(dir, stepDir)
	if err := os.MkdirAll(full, 0o755); err != nil {
		return nil, fmt.Errorf("attribution: judge records: %w", err)
	}
	var paths []string
	var errs []error
	for i := range min(len(episodes), len(judgments)) {
		ep, j := episodes[i], judgments[i]
		if j.Source == SourceSkipped {
			continue
		}
		rec := JudgeRecord{
			SampleIdx: i, Query: ep.Query, OverallScore: RescaleScore(ep.Outcome),
			LLMInputMessages: j.Prompt, LLMRawOutput: j.Response, LLMParsedResults: j.Good,
			ResponseTime: j.Elapsed.Seconds(), ModelName: opts.ModelName, EvaluationType: evalType,
			GlobalStep: globalStep, TaskID: ep.TaskID, Source: j.Source.String(), Calls: j.Calls,
		}
		if rec.LLMInputMessages == nil {
			rec.LLMInputMessages = []agentevolver.Message{}
		}
		if rec.LLMParsedResults == nil {
			rec.LLMParsedResults = []bool{}
		}
		if j.Err != nil {
			rec.Error = j.Err.Error()
			if rec.LLMRawOutput == "" {
				rec.LLMRawOutput = "ERROR: " + j.Err.Error()
			}
		}
		var rollout []string
		for _, st := range ep.Steps {
			rollout = append(rollout, st.Action)
			if st.Observation != "" {
				rollout = append(rollout, st.Observation)
			}
			act, obs := strings.TrimSpace(st.Action), strings.TrimSpace(st.Observation)
			if obs != "" {
				act += "\n\n[OBSERVATION]\n" + obs
			}
			rec.Steps = append(rec.Steps, act)
		}
		if rec.Steps == nil {
			rec.Steps = []string{}
		}
		rec.Rollout = strings.Join(rollout, "\n")
		t := now()
		rec.Timestamp = unixSeconds(t)
		stamp := strings.Replace(fmt.Sprintf("%.3f", rec.Timestamp), ".", "_", 1)
		name := fmt.Sprintf("step%06d_sample%03d_%s.json", globalStep, i, stamp)
		path := filepath.Join(full, name)
		rec.Metadata = JudgeRecordMetadata{
			SaveTime: unixSeconds(now()), StepDirectory: stepDir, FileName: name, FullPath: path, NumSteps: len(rec.Steps),
		}
		data, err := json.MarshalIndent(rec, "", "  ")
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("attribution: judge record of sample %d: %w", i, err))
			continue
		}
		paths = append(paths, path)
	}
	return paths, errors.Join(errs...)
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}
