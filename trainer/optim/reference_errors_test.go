package optim_test

import (
	"errors"
	"testing"

	"github.com/org/agentevolver/trainer/optim"
)

// TestReferenceErrors checks that a reference policy without a policy is a
// configuration error.
func TestReferenceErrors(t *testing.T) {
	backend := newBackend(t)
	if _, err := optim.NewReference(backend, nil, nil, optim.ReferenceConfig{}); !errors.Is(err, optim.ErrConfig) {
		t.Errorf("reference without policy: %v", err)
	}
}
