//go:build !xla

package main

import (
	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver/model"
)

// newGPUBenchBackend creates bench-gpu's backend; without the xla build
// tag only the pure-Go backends exist.
func newGPUBenchBackend(config string) (backends.Backend, error) {
	return model.NewBackend(config)
}
