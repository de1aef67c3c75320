//go:build linux

package mcp

import "syscall"

// sysProcAttr puts the server in a process group of its own, so that
// killing the group kills what it spawned, and asks the kernel to kill it
// when the thread that started it dies (Pdeathsig): a trainer killed with
// SIGKILL leaves no server behind. Go never ends a thread that runs
// ordinary goroutines, so the signal comes only with the process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
