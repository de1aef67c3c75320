package runlog

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// writeFileAtomic writes a file through a temporary file in the same
// directory and renames it over path, so readers and crashes see either the
// old content or the complete new content. Parent directories are created.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("runlog: create directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("runlog: create temporary file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	buffered := bufio.NewWriter(tmp)
	if err := write(buffered); err != nil {
		return err
	}
	if err := buffered.Flush(); err != nil {
		return fmt.Errorf("runlog: write %s: %w", path, err)
	}
	// CreateTemp makes the file private; these files are meant to be read.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("runlog: chmod %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("runlog: sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("runlog: close %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("runlog: rename into %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable where the platform allows it; failure only
// weakens durability against power loss, so it is not reported.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

func itoa(n int) string { return strconv.Itoa(n) }
