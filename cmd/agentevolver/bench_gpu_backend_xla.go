//go:build xla

package main

import (
	"fmt"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/xla"

	"github.com/org/agentevolver/model"
)

// newGPUBenchBackend creates bench-gpu's backend. On CUDA it asks the PJRT
// client not to preallocate device memory (XLA takes 75% of the GPU
// up front by default), so that nvidia-smi shows what the run needs; any
// other configuration goes through model.NewBackend.
func newGPUBenchBackend(config string) (b backends.Backend, err error) {
	name, plugin, _ := strings.Cut(config, ":")
	if name != "xla" || !strings.HasPrefix(plugin, "cuda") || strings.Contains(plugin, ",") {
		return model.NewBackend(config)
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("%w: %s: %v", model.ErrBackendUnavailable, config, r)
		}
	}()
	xb, err := xla.NewWithOptions(plugin, map[string]any{"preallocate": false})
	if err != nil {
		return nil, fmt.Errorf("%w: %s (preallocate=false): %w", model.ErrBackendUnavailable, config, err)
	}
	return xb, nil
}
