//go:build xla

package model

import (
	"os"

	_ "github.com/gomlx/gomlx/backends/xla" // XLA/PJRT backend, needs cgo and a PJRT plugin
)

func init() {
	// Never download plugins at run time: fail with a clear error instead.
	if os.Getenv("GOMLX_NO_AUTO_INSTALL") == "" {
		_ = os.Setenv("GOMLX_NO_AUTO_INSTALL", "1")
	}
}
