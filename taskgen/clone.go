package taskgen

import "github.com/org/agentevolver"

// cloneTask returns a copy of t that shares no mutable state with it: the
// Metadata map is copied, and so are the maps and slices inside it (the
// shapes a JSON decoder produces, plus []string and map[string]string).
// Other values in Metadata are copied as values; a pointer or a user type
// holding references stays shared, which a JSON-serialisable value never
// needs.
func cloneTask(t agentevolver.Task) agentevolver.Task {
	if t.Metadata != nil {
		t.Metadata = cloneMap(t.Metadata)
	}
	return t
}

// cloneObjective returns a copy of o that shares no mutable state with it.
func cloneObjective(o agentevolver.TaskObjective) agentevolver.TaskObjective {
	o.Task = cloneTask(o.Task)
	if o.Confidence != nil {
		c := *o.Confidence
		o.Confidence = &c
	}
	if o.Reward != nil {
		r := *o.Reward
		o.Reward = &r
	}
	return o
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		return cloneMap(v)
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cloneValue(x)
		}
		return out
	case []string:
		if v == nil {
			return v
		}
		return append([]string(nil), v...)
	case map[string]string:
		if v == nil {
			return v
		}
		out := make(map[string]string, len(v))
		for k, x := range v {
			out[k] = x
		}
		return out
	case []float64:
		if v == nil {
			return v
		}
		return append([]float64(nil), v...)
	case []int:
		if v == nil {
			return v
		}
		return append([]int(nil), v...)
	}
	return v
}
