package envservice

import (
	"fmt"
	"strings"
)

// SparseParam reads the "sparse" entry of a create, step or evaluate
// call's params, as the env-service protocol sends it: a bool, or the
// strings "true"/"false" in any case. present is false when the entry is
// absent or null. Any other value is an error wrapping errBad, the
// environment's own bad-parameters sentinel, so callers can test for it
// with errors.Is.
func SparseParam(params map[string]any, errBad error) (sparse, present bool, err error) {
	v, ok := params["sparse"]
	if !ok || v == nil {
		return false, false, nil
	}
	switch s := v.(type) {
	case bool:
		return s, true, nil
	case string:
		switch strings.ToLower(s) {
		case "true":
			return true, true, nil
		case "false":
			return false, true, nil
		}
	}
	return false, false, fmt.Errorf("%w: sparse must be true or false, got %v", errBad, v)
}
