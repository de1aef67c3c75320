package toolworld

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/org/agentevolver/internal/jsonscan"
)

// maxJSONAttempts bounds how many '{' positions of one action are tried as
// the start of a JSON call, so that scanning stays linear in practice.
const maxJSONAttempts = 32

// findJSONCall looks for one JSON call object in free text. found is false
// when there is none; err is set when there are several, or when an object
// that starts like a call ({"name": ...) is not valid JSON.
func findJSONCall(s string) (call Call, found bool, err error) {
	var calls []Call
	var firstErr error
	badJSON := jsonscan.Objects(s, maxJSONAttempts, func(obj map[string]json.RawMessage) {
		if !looksLikeCall(obj) {
			return
		}
		c, cerr := callFromObject(obj)
		if cerr != nil && firstErr == nil {
			firstErr = cerr
		}
		if cerr == nil {
			calls = append(calls, c)
		}
	})
	switch {
	case len(calls)+boolInt(firstErr != nil) > 1:
		return Call{}, true, actionErr(ErrMultipleCalls, "%d JSON tool calls found; send exactly one call per turn", len(calls)+boolInt(firstErr != nil))
	case firstErr != nil:
		return Call{}, true, firstErr
	case len(calls) == 1:
		return calls[0], true, nil
	case badJSON != "":
		return Call{}, true, actionErr(ErrBadJSON, "the JSON tool call is not valid JSON (%s); send {\"name\": \"app.api\", \"arguments\": {\"key\": \"value\"}}", clip(badJSON))
	}
	return Call{}, false, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// looksLikeCall reports whether a decoded object is meant as a tool call:
// a string "name" plus arguments, or a name of the app.api (app_api) form.
func looksLikeCall(obj map[string]json.RawMessage) bool {
	raw, ok := obj["name"]
	if !ok {
		return false
	}
	var name string
	if json.Unmarshal(raw, &name) != nil {
		return false
	}
	_, hasArgs := obj["arguments"]
	_, hasParams := obj["parameters"]
	return hasArgs || hasParams || strings.ContainsAny(name, "._")
}

// parseJSONObject decodes a whole text as one JSON call object.
func parseJSONObject(data []byte) (Call, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return Call{}, actionErr(ErrBadJSON, "the JSON tool call is not valid JSON (%s); send {\"name\": \"app.api\", \"arguments\": {\"key\": \"value\"}}", clip(err.Error()))
	}
	if dec.More() {
		return Call{}, actionErr(ErrMultipleCalls, "the tool block holds more than one JSON value; send exactly one call per turn")
	}
	if _, ok := obj["name"]; !ok {
		return Call{}, actionErr(ErrBadJSON, "the JSON tool call has no \"name\"; send {\"name\": \"app.api\", \"arguments\": {...}}")
	}
	return callFromObject(obj)
}

// callFromObject turns {"name", "arguments" | "parameters"} into a Call.
func callFromObject(obj map[string]json.RawMessage) (Call, error) {
	var name string
	if err := json.Unmarshal(obj["name"], &name); err != nil {
		return Call{}, actionErr(ErrBadJSON, "the \"name\" of a JSON tool call must be a string like \"contacts.find\"")
	}
	args, ok := obj["arguments"]
	if !ok {
		args = obj["parameters"]
	}
	return parseJSONCall(name, args)
}

// parseJSONCall builds a Call from a function name and its JSON arguments:
// an object, a string holding an object (the OpenAI wire form), or nothing.
func parseJSONCall(name string, args []byte) (Call, error) {
	name = strings.TrimSpace(name)
	sep := byte('.')
	if !strings.Contains(name, ".") {
		sep = '_'
	}
	app, api, err := splitName(name, sep)
	if err != nil {
		return Call{}, err
	}
	call := Call{App: app, API: api}
	args = bytes.TrimSpace(args)
	if len(args) > 0 && args[0] == '"' {
		var inner string
		if err := json.Unmarshal(args, &inner); err != nil {
			return Call{}, actionErr(ErrBadJSON, "the arguments are not valid JSON (%s)", clip(err.Error()))
		}
		args = bytes.TrimSpace([]byte(inner))
	}
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		return call, nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil {
		return Call{}, actionErr(ErrBadJSON, "the arguments must be a JSON object like {\"name\": \"Ann\"} (%s)", clip(err.Error()))
	}
	if dec.More() {
		return Call{}, actionErr(ErrBadJSON, "the arguments must be a single JSON object")
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !isIdent(k) {
			return Call{}, actionErr(ErrBadJSON, "%q is not an argument name; names are letters, digits and _", clip(k))
		}
		var value string
		switch v := fields[k].(type) {
		case nil:
			continue
		case string:
			value = v
		case json.Number:
			value = v.String()
		case bool:
			value = "false"
			if v {
				value = "true"
			}
		default:
			return Call{}, actionErr(ErrBadJSON, "argument %q must be a string or a number", clip(k))
		}
		if err := call.add(strings.ToLower(k), value); err != nil {
			return Call{}, err
		}
	}
	return call, nil
}
