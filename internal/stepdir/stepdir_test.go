package stepdir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNameParseList(t *testing.T) {
	if Name(7) != "step_000007" {
		t.Errorf("Name(7) = %q", Name(7))
	}
	for name, want := range map[string]bool{"step_000007": true, "step_7": false, "step_000007.tmp": false, "latest": false} {
		if _, ok := Parse(name); ok != want {
			t.Errorf("Parse(%q) ok = %v, want %v", name, ok, want)
		}
	}
	root := t.TempDir()
	for _, d := range []string{Name(2), Name(10), Name(1) + ".tmp", "other"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, Name(5)), nil, 0o644); err != nil { // a file, not a directory
		t.Fatal(err)
	}
	got, err := List(root)
	if err != nil || !slices.Equal(got, []string{Name(10), Name(2)}) {
		t.Errorf("List = %v, %v", got, err)
	}
}
