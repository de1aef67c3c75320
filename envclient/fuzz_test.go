package envclient

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeEnvelope feeds arbitrary bodies to the envelope decoder and to
// every data decoder behind it: they must not panic, must fail only with
// ErrBadResponse, and must return sane values when they succeed.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, seed := range []string{
		`{"success": true, "data": ["t1", "t2"]}`,
		`{"success": true, "task_ids": [1, "2", 3.5]}`,
		`{"success": true, "data": {"state": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], "info": {"instance_id": "i", "task_id": "t"}}}`,
		`{"success": true, "data": {"state": [{"role": "user", "content": [{"type": "text", "text": "a"}], "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"x": 1}}}]}], "reward": 0.5, "is_terminated": true, "info": {}}}`,
		`{"success": true, "data": 0.75}`,
		`{"success": true, "data": "0.5"}`,
		`{"success": true, "data": true}`,
		`{"success": false, "data": null}`,
		`{"success": "yes"}`,
		`{"data": 1} trailing`,
		`[1, 2]`,
		`null`,
		``,
		`{"detail": [{"loc": ["body"], "msg": "m"}]}`,
		"{\"success\": true, \"data\": \"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		env, err := decodeEnvelope(body)
		if err != nil {
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("decodeEnvelope error %v does not wrap ErrBadResponse", err)
			}
			return
		}
		if env.Data != nil && !json.Valid(env.Data) {
			t.Fatalf("data %q is not valid JSON", env.Data)
		}
		checkErr := func(what string, err error) {
			if err != nil && !errors.Is(err, ErrBadResponse) {
				t.Fatalf("%s error %v does not wrap ErrBadResponse", what, err)
			}
		}
		ids, err := decodeTaskIDs(env)
		checkErr("decodeTaskIDs", err)
		if err == nil && ids == nil {
			t.Fatal("decodeTaskIDs returned a nil list without error")
		}
		score, err := decodeScore(env)
		checkErr("decodeScore", err)
		if err == nil && (math.IsNaN(score) || math.IsInf(score, 0)) {
			t.Fatalf("decodeScore returned %v", score)
		}
		_, err = decodeInitState(env)
		checkErr("decodeInitState", err)
		_, err = decodeStepResult(env)
		checkErr("decodeStepResult", err)
		released, err := decodeReleased(env)
		checkErr("decodeReleased", err)
		if err == nil && released != *env.Success {
			t.Fatal("decodeReleased disagrees with success")
		}
	})
}

// FuzzDecodeDetail feeds arbitrary error bodies to the detail decoder: the
// result must be valid UTF-8 without surrounding space.
func FuzzDecodeDetail(f *testing.F) {
	for _, seed := range []string{
		`{"detail": "Instance i not found!"}`,
		`{"detail": [{"loc": ["body", "messages", 0], "msg": "field required", "type": "value_error.missing"}]}`,
		`{"detail": {"nested": [1, 2]}}`,
		`{"detail": [{"loc": [null, true, {"a": 1}], "msg": "odd"}]}`,
		"Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'a'\n",
		"\xff\xfe not utf8 ",
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		d := decodeDetail(body)
		if !utf8.ValidString(d) {
			t.Fatalf("detail %q is not valid UTF-8", d)
		}
		if strings.TrimSpace(d) != d {
			t.Fatalf("detail %q has surrounding space", d)
		}
		_ = (&StatusError{Route: "/x", StatusCode: 400, Detail: d}).Error()
	})
}
