package gobackend

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/gomlx/backends"
	"k8s.io/klog/v2"

	"github.com/org/agentevolver/internal/parallel"
)

// backend is shared by the upstream tests. It is always a gofast backend:
// $GOMLX_BACKEND only contributes options when it names gofast (e.g.
// "gofast:ops_parallel"), so a GOMLX_BACKEND=go left in the environment
// cannot make these tests silently test upstream simplego instead.
var backend backends.Backend

func init() {
	klog.InitFlags(nil)
}

func setup() {
	config := ""
	if env := os.Getenv(backends.ConfigEnvVar); strings.HasPrefix(env, BackendName) {
		_, config, _ = strings.Cut(env, ":")
	}
	var err error
	backend, err = New(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gofast backend %q: %v\n", config, err)
		os.Exit(1)
	}
}

func teardown() {
	backend.Finalize()
}

func TestMain(m *testing.M) {
	setup()
	code := m.Run()
	teardown()
	os.Exit(code)
}

// TestSpinOption checks the spin=D option: a duration sets the team's
// spin, 0 turns spinning off, anything else is refused.
func TestSpinOption(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   time.Duration
	}{{"", 0}, {"spin=2ms", 2 * time.Millisecond}, {"ops_sequential,spin=0", parallel.NoSpin}, {"spin=0s", parallel.NoSpin}} {
		b, err := New(tc.config)
		if err != nil {
			t.Fatalf("New(%q): %v", tc.config, err)
		}
		if got := b.(*Backend).Team().Spin; got != tc.want {
			t.Errorf("New(%q): spin %v, want %v", tc.config, got, tc.want)
		}
		b.Finalize()
	}
	for _, config := range []string{"spin=", "spin=fast", "spin=-1ms"} {
		if _, err := New(config); err == nil || !strings.Contains(err.Error(), "spin") {
			t.Errorf("New(%q): error %v, want one naming spin", config, err)
		}
	}
}
