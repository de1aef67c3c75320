package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// schema is the part of a tool's JSON input schema that the environment
// checks before calling the tool: the top-level properties, their types,
// the required ones and additionalProperties false. Deeper rules are the
// server's to check; its refusal is an observation too.
type schema struct {
	Properties           map[string]propSchema `json:"properties"`
	Required             []string              `json:"required"`
	AdditionalProperties any                   `json:"additionalProperties"`
}

type propSchema struct {
	Type any `json:"type"` // a string or a list of strings
}

func parseSchema(raw json.RawMessage) schema {
	var s schema
	_ = json.Unmarshal(raw, &s) // an unreadable schema checks nothing
	return s
}

// check returns a description of what is wrong with args, or "".
func (s schema) check(args map[string]any) string {
	var problems []string
	for _, r := range s.Required {
		if _, ok := args[r]; !ok {
			problems = append(problems, fmt.Sprintf("missing required argument %q", r))
		}
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := s.Properties[k]
		if !ok {
			if s.AdditionalProperties == false {
				problems = append(problems, fmt.Sprintf("unknown argument %q", k))
			}
			continue
		}
		if types := p.types(); len(types) > 0 && !slices.Contains(types, jsonType(args[k])) &&
			!(jsonType(args[k]) == "integer" && slices.Contains(types, "number")) {
			problems = append(problems, fmt.Sprintf("argument %q must be %s, got %s", k, strings.Join(types, " or "), jsonType(args[k])))
		}
	}
	return strings.Join(problems, "; ")
}

func (p propSchema) types() []string {
	switch t := p.Type.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// jsonType names the JSON schema type of a decoded value (numbers decoded
// as json.Number or float64).
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// boundSchema returns raw if it is at most limit bytes, else the part of it
// that the environment checks (schema), else an object schema that checks
// nothing: a server's schema of megabytes would otherwise be repeated in
// every episode's system prompt.
func boundSchema(raw json.RawMessage, limit int) json.RawMessage {
	if len(raw) <= limit {
		return raw
	}
	s := parseSchema(raw)
	reduced := map[string]any{"type": "object"}
	if len(s.Properties) > 0 {
		props := make(map[string]any, len(s.Properties))
		for name, p := range s.Properties {
			prop := map[string]any{}
			if types := p.types(); len(types) == 1 {
				prop["type"] = types[0]
			} else if len(types) > 1 {
				prop["type"] = types
			}
			props[name] = prop
		}
		reduced["properties"] = props
	}
	if len(s.Required) > 0 {
		reduced["required"] = s.Required
	}
	if s.AdditionalProperties == false {
		reduced["additionalProperties"] = false
	}
	if data, err := json.Marshal(reduced); err == nil && len(data) <= limit {
		return data
	}
	return json.RawMessage(`{"type":"object"}`)
}
