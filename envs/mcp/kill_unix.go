//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// killGroup kills the process group led by p (the server and whatever it
// spawned without leaving the group), then p itself.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
