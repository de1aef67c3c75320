// Package stepdir names and lists the per-step directories a run keeps
// (step_NNNNNN): the trainer's checkpoints and the adapters a fleet
// publisher exports.
package stepdir

import (
	"fmt"
	"os"
	"slices"
)

// Name is the directory name of step.
func Name(step int) string { return fmt.Sprintf("step_%06d", step) }

// Parse returns the step a directory name names, and whether name is
// exactly Name of it.
func Parse(name string) (int, bool) {
	var step int
	if _, err := fmt.Sscanf(name, "step_%d", &step); err != nil || name != Name(step) {
		return 0, false
	}
	return step, true
}

// List returns the step directories under root (no temporary or other
// entries), newest first.
func List(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	type found struct {
		name string
		step int
	}
	var dirs []found
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if step, ok := Parse(e.Name()); ok {
			dirs = append(dirs, found{e.Name(), step})
		}
	}
	slices.SortFunc(dirs, func(a, b found) int { return b.step - a.step })
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = d.name
	}
	return names, nil
}
