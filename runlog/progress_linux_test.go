//go:build linux

package runlog

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair; the test skips where there is none.
func openPTY(t *testing.T) (controller, terminal *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { controller.Close() })
	fd := int(controller.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pseudo-terminal number: %v", err)
	}
	terminal, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { terminal.Close() })
	return controller, terminal
}

func TestProgressBarOnTerminal(t *testing.T) {
	controller, terminal := openPTY(t)
	read := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(controller) // ends with EIO once the terminal side closes
		read <- data
	}()
	p := NewProgress(terminal, 20, ProgressOptions{Description: "rl steps"})
	if p.bar == nil {
		t.Fatal("no bar on a terminal")
	}
	for range 20 {
		p.Add(1)
	}
	p.Finish()
	terminal.Close()
	out := <-read
	for _, want := range []string{"rl steps", "100%", "20/20", "\r"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("terminal output lacks %q: %q", want, out)
		}
	}
}
