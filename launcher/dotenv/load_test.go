package dotenv

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mapEnv is an Env in a map.
type mapEnv map[string]string

func (m mapEnv) LookupEnv(k string) (string, bool) { v, ok := m[k]; return v, ok }
func (m mapEnv) Setenv(k, v string) error          { m[k] = v; return nil }

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	const text = `# launcher settings
APPWORLD_PATH=./env_service/launch_script
APPWORLD_SCRIPT="source $HOME/conda.sh; conda activate appworld; bash appworld.sh"
export REME_PATH='./external/reme'   # comment
OPENAI_BASE_URL=${BASE:-http://127.0.0.1:8000}/v1
HOME=/from/file
broken line here
'a=b'=1
`
	path := writeFile(t, text)
	tests := []struct {
		name     string
		override bool
		wantHome string
		wantKept []string
	}{
		{"environment wins", false, "/home/me", []string{"HOME"}},
		{"file wins", true, "/from/file", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := mapEnv{"HOME": "/home/me"}
			res, err := Load(path, env, tt.override)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"HOME":            tt.wantHome,
				"APPWORLD_PATH":   "./env_service/launch_script",
				"APPWORLD_SCRIPT": "source $HOME/conda.sh; conda activate appworld; bash appworld.sh",
				"REME_PATH":       "./external/reme",
				"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1",
			}
			for k, v := range want {
				if env[k] != v {
					t.Errorf("%s = %q, want %q", k, env[k], v)
				}
			}
			if len(env) != len(want) {
				t.Errorf("env %v, want %d variables", env, len(want))
			}
			if !slices.Equal(res.Kept, tt.wantKept) {
				t.Errorf("kept %v, want %v", res.Kept, tt.wantKept)
			}
			if len(res.Skipped) != 2 || !strings.Contains(res.Skipped[0].Error(), "line 7") || !strings.Contains(res.Skipped[1].Error(), `"a=b"`) {
				t.Errorf("skipped %v, want line 7 and the key a=b", res.Skipped)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), ".env"), mapEnv{}, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := Load(writeFile(t, "A=\xff\n"), mapEnv{}, false); !errors.Is(err, ErrInvalid) {
		t.Errorf("not UTF-8: %v, want ErrInvalid", err)
	}
	if _, err := Load(writeFile(t, "A="+strings.Repeat("x", MaxFileSize)), mapEnv{}, false); !errors.Is(err, ErrInvalid) {
		t.Errorf("too large: %v, want ErrInvalid", err)
	}
}
