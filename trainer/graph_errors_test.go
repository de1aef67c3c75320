package trainer_test

import (
	"errors"
	"testing"

	"github.com/org/agentevolver/trainer"
)

// TestReferenceErrors checks that a reference policy without a policy is a
// configuration error.
func TestReferenceErrors(t *testing.T) {
	backend := newBackend(t)
	if _, err := trainer.NewReference(backend, nil, nil, trainer.ReferenceConfig{}); !errors.Is(err, trainer.ErrConfig) {
		t.Errorf("reference without policy: %v", err)
	}
}
