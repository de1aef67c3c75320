package trainer_test

import (
	"testing"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver/model"
)

func newBackend(t testing.TB) backends.Backend {
	t.Helper()
	b, err := model.NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Finalize)
	return b
}
