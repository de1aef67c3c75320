package gobackend

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"k8s.io/klog/v2"
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
