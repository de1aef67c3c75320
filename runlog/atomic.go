package runlog

import (
	"fmt"
	"io"
	"strconv"

	"github.com/org/agentevolver/internal/fsutil"
)

// writeFileAtomic replaces path atomically with what write produces (see
// fsutil.WriteFileAtomic).
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if err := fsutil.WriteFileAtomic(path, write); err != nil {
		return fmt.Errorf("runlog: write %s: %w", path, err)
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }
