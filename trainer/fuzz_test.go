package trainer

import (
	"errors"
	"testing"

	"github.com/org/agentevolver/trainer/objective"
)

// FuzzModes checks that mode and KL names are accepted exactly when
// known, with the sentinel errors otherwise.
func FuzzModes(f *testing.F) {
	for _, s := range []string{"", "token-mean", "seq-mean-token-sum-norm", "low_var_kl", "k3", "full", "token-sum"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, err := range []error{objective.AggMode(s).Validate(), objective.KLType(s).Validate()} {
			if err == nil {
				continue
			}
			if !errors.Is(err, objective.ErrUnknownAggMode) && !errors.Is(err, objective.ErrUnknownKLType) {
				t.Fatalf("%q: %v", s, err)
			}
			if len(err.Error()) > 256 {
				t.Fatalf("error message not bounded: %d bytes", len(err.Error()))
			}
		}
	})
}
