//go:build unix && !linux

package mcp

import "syscall"

// sysProcAttr puts the server in a process group of its own, so that
// killing the group kills what it spawned.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
