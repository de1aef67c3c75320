//go:build !unix

package mcp

import (
	"os"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills p; without process groups its children may survive.
func killGroup(p *os.Process) { _ = p.Kill() }
