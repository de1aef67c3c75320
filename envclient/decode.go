package envclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// envelope is the body of every successful env-service answer:
// {"success": bool, "data": any}. /get_env_profile answers of older
// services carry the list as "task_ids" instead of "data".
type envelope struct {
	// Success is nil when the key is absent.
	Success *bool
	// Data is nil when the key is absent or null.
	Data json.RawMessage
	// TaskIDs is nil when the key is absent or null.
	TaskIDs json.RawMessage
}

// decodeEnvelope parses a success body. It fails (with an error wrapping
// ErrBadResponse) on anything but one JSON object whose "success", if
// present, is a boolean.
func decodeEnvelope(body []byte) (envelope, error) {
	var raw struct {
		Success json.RawMessage `json:"success"`
		Data    json.RawMessage `json:"data"`
		TaskIDs json.RawMessage `json:"task_ids"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return envelope{}, fmt.Errorf("%w: want a JSON object, got %s", ErrBadResponse, preview(trimmed))
	}
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return envelope{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	var env envelope
	if present(raw.Success) {
		var ok bool
		if err := json.Unmarshal(raw.Success, &ok); err != nil {
			return envelope{}, fmt.Errorf("%w: success is %s, want a boolean", ErrBadResponse, preview(raw.Success))
		}
		env.Success = &ok
	}
	if present(raw.Data) {
		env.Data = raw.Data
	}
	if present(raw.TaskIDs) {
		env.TaskIDs = raw.TaskIDs
	}
	return env, nil
}

// present reports whether a raw field holds a value other than null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// preview quotes the start of an unexpected body for an error message.
func preview(b []byte) string {
	const n = 64
	if len(b) > n {
		return strconv.Quote(strings.ToValidUTF8(string(b[:n]), "")) + "…"
	}
	return strconv.Quote(string(b))
}

// requireSuccess rejects an envelope that says success == false. Only
// /release uses false as an answer; elsewhere the reference server never
// sends it, so it means the service is not speaking the protocol.
func requireSuccess(env envelope) error {
	if env.Success != nil && !*env.Success {
		return fmt.Errorf("%w: success is false", ErrBadResponse)
	}
	return nil
}

// decodeTaskIDs reads the task id list from data, or from task_ids when
// data is absent. Ids may be strings or numbers (kept as their JSON text,
// e.g. 12 → "12"), since some environments number their tasks.
func decodeTaskIDs(env envelope) ([]string, error) {
	raw := env.Data
	if raw == nil {
		raw = env.TaskIDs
	}
	if raw == nil {
		return nil, fmt.Errorf("%w: neither data nor task_ids holds the task list", ErrBadResponse)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%w: task list is %s, want an array", ErrBadResponse, preview(raw))
	}
	ids := make([]string, 0, len(items))
	for i, item := range items {
		id, err := decodeTaskID(item)
		if err != nil {
			return nil, fmt.Errorf("%w: task id %d: %v", ErrBadResponse, i, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func decodeTaskID(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	if len(raw) > 0 && (raw[0] == '-' || ('0' <= raw[0] && raw[0] <= '9')) {
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			return n.String(), nil
		}
	}
	return "", fmt.Errorf("got %s, want a string or a number", preview(raw))
}

// decodeScore reads the result of /evaluate. A number is the score; a
// boolean counts as 1 or 0 (Python's float(True)); a string holding a
// finite number is parsed. Anything else, and a missing data, is
// ErrBadResponse: guessing a score would train on noise.
func decodeScore(env envelope) (float64, error) {
	if env.Data == nil {
		return 0, fmt.Errorf("%w: evaluate returned no data", ErrBadResponse)
	}
	var v any
	if err := json.Unmarshal(env.Data, &v); err != nil {
		return 0, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	switch v := v.(type) {
	case float64:
		return v, nil
	case bool:
		if v {
			return 1, nil
		}
		return 0, nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%w: score is %s, want a number", ErrBadResponse, preview(env.Data))
}

// decodeInitState reads the result of /create.
func decodeInitState(env envelope) (InitState, error) {
	if env.Data == nil {
		return InitState{}, fmt.Errorf("%w: create returned no data", ErrBadResponse)
	}
	var s InitState
	if err := json.Unmarshal(env.Data, &s); err != nil {
		return InitState{}, fmt.Errorf("%w: init state: %v", ErrBadResponse, err)
	}
	return s, nil
}

// decodeStepResult reads the result of /step.
func decodeStepResult(env envelope) (StepResult, error) {
	if env.Data == nil {
		return StepResult{}, fmt.Errorf("%w: step returned no data", ErrBadResponse)
	}
	var r StepResult
	if err := json.Unmarshal(env.Data, &r); err != nil {
		return StepResult{}, fmt.Errorf("%w: step result: %v", ErrBadResponse, err)
	}
	return r, nil
}

// decodeReleased reads the result of /release, where success is the answer.
func decodeReleased(env envelope) (bool, error) {
	if env.Success == nil {
		return false, fmt.Errorf("%w: release answer has no success", ErrBadResponse)
	}
	return *env.Success, nil
}
