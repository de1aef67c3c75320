package fsutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 5); err != nil || string(data) != "12345" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	if _, err := ReadFile(path, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want ErrNotExist", err)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.json")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old content and no temporary file.
	boom := errors.New("boom")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		_, _ = w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "one" {
		t.Fatalf("content %q, %v", data, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", info.Mode())
	}
}

func TestSyncTree(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"f", "a/g", "a/b/h"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := SyncTree(root); err != nil {
		t.Fatal(err)
	}
	if err := SyncTree(filepath.Join(root, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("SyncTree(missing) = %v, want ErrNotExist", err)
	}
	if err := SyncDir(root); err != nil {
		t.Fatal(err)
	}
}
