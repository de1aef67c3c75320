package gobackend

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// upstreamVersion is the GoMLX release this fork was taken from.
const upstreamVersion = "v0.26.0"

// verbatimFiles are the files of this directory kept exactly as in
// upstream's backends/simplego but for the package clause: updating the
// fork starts by copying them again. README.md lists what differs in the
// others.
var verbatimFiles = []string{
	"LICENSE",
	"buffers_test.go",
	"convgeneral.go",
	"convgeneral_exec.go",
	"dotgeneral_large.go",
	"dotgeneral_small.go",
	"exec_binary_test.go",
	"exec_test.go",
	"gen_convgeneral_exec_bf16.go",
	"gen_convgeneral_exec_full.go",
	"gen_convgeneral_exec_full_bf16.go",
	"gen_register_dtypes.go",
	"dotgeneral_lhs_test.bin",
	"dotgeneral_lhs_2_test.bin",
	"dotgeneral_out_test.bin",
	"dotgeneral_out_2_test.bin",
	"dotgeneral_rhs_test.bin",
	"dotgeneral_rhs_2_test.bin",
}

var packageSimplego = regexp.MustCompile(`(?m)^package simplego$`)

// TestVerbatimFilesMatchUpstream compares the files kept verbatim with
// upstream GoMLX's, read from the module cache (go list -m), and checks
// that go.mod still requires the release the fork was taken from.
func TestVerbatimFilesMatchUpstream(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not installed")
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", "github.com/gomlx/gomlx").Output()
	if err != nil {
		t.Skipf("go list -m github.com/gomlx/gomlx: %v", err)
	}
	version, dir, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if version != upstreamVersion {
		t.Fatalf("go.mod requires GoMLX %s, the fork is of %s: update the fork (README.md) and upstreamVersion", version, upstreamVersion)
	}
	if dir == "" {
		t.Skip("GoMLX is not in the module cache (go mod download)")
	}
	upstream := filepath.Join(dir, "backends", "simplego")
	for _, name := range verbatimFiles {
		want, err := os.ReadFile(filepath.Join(upstream, name))
		if name == "LICENSE" {
			want, err = os.ReadFile(filepath.Join(dir, name))
		}
		if err != nil {
			t.Errorf("%s: upstream: %v", name, err)
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.HasSuffix(name, ".go") {
			want = packageSimplego.ReplaceAll(want, []byte("package gobackend"))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from upstream %s: copy it again, or move it out of verbatimFiles and say what changed in README.md", name, upstreamVersion)
		}
	}
}
