package fsutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrTooLarge reports a file larger than the caller's limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the whole file at path, failing with an error wrapping
// ErrTooLarge when it holds more than limit bytes. A regular file that is
// already too large is refused before any reading; otherwise it never reads
// more than limit+1 bytes, whatever the file claims to be.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes, more than %d)", path, ErrTooLarge, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, limit)
	}
	return data, nil
}

// WriteFileAtomic replaces path with what write produces: it writes a
// temporary file in the same directory (creating the directory), syncs it
// and renames it over path, so readers and crashes see either the old
// content or the complete new one. The file is readable by everyone
// (0644).
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
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
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file private; these files are meant to be read.
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// WriteFile is WriteFileAtomic for bytes already in memory.
func WriteFile(path string, data []byte) error {
	return WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
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

// SyncTree flushes every regular file under root, then every directory
// (deepest first, root last), to stable storage, so that files written by
// code that does not sync them (GoMLX's checkpoint writer, say) survive a
// power loss once SyncTree returns. Unlike syncDir it reports failures: a
// checkpoint that cannot be made durable must not be declared complete.
func SyncTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			dirs = append(dirs, path)
			return nil
		case !d.Type().IsRegular():
			return nil // links and devices are not ours to flush
		}
		return syncPath(path)
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := syncPath(dirs[i]); err != nil {
			return err
		}
	}
	return nil
}

// SyncDir flushes a directory's entries (a rename or removal in it) to
// stable storage, reporting failure.
func SyncDir(dir string) error { return syncPath(dir) }

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return f.Close()
}
