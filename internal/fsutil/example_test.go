package fsutil_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/internal/fsutil"
)

// A file is replaced atomically and read back under a size bound.
func Example() {
	dir, _ := os.MkdirTemp("", "fsutil")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state.json")
	if err := fsutil.WriteFile(path, []byte(`{"step": 3}`)); err != nil {
		fmt.Println(err)
		return
	}
	data, err := fsutil.ReadFile(path, 1<<10)
	fmt.Println(string(data), err)
	_, err = fsutil.ReadFile(path, 4)
	fmt.Println(errors.Is(err, fsutil.ErrTooLarge))
	// Output:
	// {"step": 3} <nil>
	// true
}
