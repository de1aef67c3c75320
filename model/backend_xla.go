//go:build xla

package model

import (
	"os"

	"github.com/gomlx/gomlx/backends/xla" // XLA/PJRT backend, needs cgo and a PJRT plugin
)

func init() {
	// Never download plugins at run time: fail with a clear error instead.
	// The xla package reads GOMLX_NO_AUTO_INSTALL in its own init, which
	// runs before this one, so setting the variable here is not enough:
	// switch auto-install off directly as well.
	if os.Getenv("GOMLX_NO_AUTO_INSTALL") == "" {
		_ = os.Setenv("GOMLX_NO_AUTO_INSTALL", "1")
	}
	xla.EnableAutoInstall(false)
}
