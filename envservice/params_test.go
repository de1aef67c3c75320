package envservice

import (
	"errors"
	"testing"
)

func TestSparseParam(t *testing.T) {
	errBad := errors.New("bad params")
	for _, tt := range []struct {
		params          map[string]any
		sparse, present bool
		wantErr         bool
	}{
		{nil, false, false, false},
		{map[string]any{"sparse": nil}, false, false, false},
		{map[string]any{"sparse": true}, true, true, false},
		{map[string]any{"sparse": "FALSE"}, false, true, false},
		{map[string]any{"sparse": "True"}, true, true, false},
		{map[string]any{"sparse": 1}, false, false, true},
		{map[string]any{"sparse": "yes"}, false, false, true},
	} {
		sparse, present, err := SparseParam(tt.params, errBad)
		if sparse != tt.sparse || present != tt.present || (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, errBad)) {
			t.Errorf("SparseParam(%v) = %v, %v, %v", tt.params, sparse, present, err)
		}
	}
}
