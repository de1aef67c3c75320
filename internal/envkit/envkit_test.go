package envkit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/envkit"
)

func TestKind(t *testing.T) {
	unknown := envkit.Kind("env: unknown task", envclient.ErrBadRequest)
	split := envkit.Kind("env: unknown split", envclient.ErrBadRequest)
	narrower := envkit.Kind("env: bad hindsight id", unknown)
	if unknown.Error() != "env: unknown task" {
		t.Errorf("Error() = %q", unknown.Error())
	}
	wrapped := fmt.Errorf("%w %q", narrower, "t-1")
	for _, target := range []error{narrower, unknown, envclient.ErrBadRequest} {
		if !errors.Is(wrapped, target) {
			t.Errorf("%v does not match %v", wrapped, target)
		}
	}
	if errors.Is(unknown, split) || errors.Is(split, unknown) || errors.Is(unknown, narrower) {
		t.Error("sentinels of one parent match each other")
	}
	if errors.Is(unknown, envclient.ErrInstanceNotFound) {
		t.Error("matches a sentinel it does not wrap")
	}
}

func TestUsable(t *testing.T) {
	errClosed := envkit.Kind("env: instance closed", envclient.ErrInstanceNotFound)
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	tests := []struct {
		ctx    context.Context
		closed bool
		want   error
	}{
		{live, false, nil},
		{live, true, errClosed},
		{done, false, context.Canceled},
		{done, true, context.Canceled}, // the context first
	}
	for _, tt := range tests {
		if err := envkit.Usable(tt.ctx, tt.closed, errClosed); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("Usable(ctx err %v, closed %v) = %v, want %v", tt.ctx.Err(), tt.closed, err, tt.want)
		}
	}
}
