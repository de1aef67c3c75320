package model

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // upstream pure-Go backend ("go"), for comparison

	_ "github.com/org/agentevolver/internal/gobackend" // "gofast": simplego with SIMD matrix products
)

// DefaultBackend is the backend configuration used when neither the caller
// nor GOMLX_BACKEND chooses one: "gofast", our fork of GoMLX's pure-Go
// simplego backend whose float32 matrix products run on AVX-512/AVX2
// assembly kernels (3-9x faster end to end on the benchmark models),
// executing ops sequentially (simplego's parallel op executor deadlocked
// under -race; the matrix products still use every core).
const DefaultBackend = "gofast:ops_sequential"

// BackendEnvVar names the environment variable that selects the backend, for
// example "xla:cuda", "xla:cpu" or "go".
const BackendEnvVar = "GOMLX_BACKEND"

// ErrBackendUnavailable reports a backend that is not compiled in or cannot
// start (for XLA: no PJRT plugin found).
var ErrBackendUnavailable = errors.New("model: backend unavailable")

// NewBackend returns the GoMLX backend for config. An empty config means
// $GOMLX_BACKEND when set, else DefaultBackend. The XLA backend is compiled in
// only with the "xla" build tag; it never downloads plugins.
func NewBackend(config string) (b backends.Backend, err error) {
	if config == "" {
		config = os.Getenv(BackendEnvVar)
	}
	if config == "" {
		config = DefaultBackend
	}
	name, _, _ := strings.Cut(config, ":")
	if !backendCompiledIn(name) {
		hint := ""
		if name == "xla" {
			hint = " (build with -tags xla and install a PJRT plugin)"
		}
		return nil, fmt.Errorf("%w: %q is not compiled in%s; available: %s", ErrBackendUnavailable, name, hint, strings.Join(backends.List(), ", "))
	}
	defer func() {
		// GoMLX reports some configuration errors by panicking.
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("%w: %s: %v", ErrBackendUnavailable, config, r)
		}
	}()
	b, err = backends.NewWithConfig(config)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBackendUnavailable, config, err)
	}
	return b, nil
}

func backendCompiledIn(name string) bool {
	for _, n := range backends.List() {
		if n == name {
			return true
		}
	}
	return false
}
