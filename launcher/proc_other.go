//go:build !unix

package launcher

import (
	"context"
	"os/exec"
)

// The launcher needs process groups and sessions: on other systems every
// operation fails with ErrUnsupported.

func detach(*exec.Cmd) error                           { return ErrUnsupported }
func groupExists(int) bool                             { return false }
func signalGroup(int, signal) error                    { return ErrUnsupported }
func processStart(int) (string, error)                 { return "", ErrUnsupported }
func groupMembers(Record) []int                        { return nil }
func lockFile(context.Context, string) (func(), error) { return nil, ErrUnsupported }

// signal stands for a Unix signal.
type signal int

const (
	terminate signal = 15
	kill      signal = 9
)
