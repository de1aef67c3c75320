package models

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ToolworldBase is the name of the shipped toolworld base policy.
const ToolworldBase = "toolworld-base"

// ToolworldBaseReserved is the name of the shipped toolworld base policy
// pretrained as ToolworldBase except that a fifth of all instructions
// (toolworld.ReservedInstruction with share 0.2) never appear in its
// corpus: the base that the experiments train on those instructions
// (env.toolworld.train_reserved), so that reinforcement learning practises
// on tasks the policy never imitated.
const ToolworldBaseReserved = "toolworld-base-reserved"

// ToolworldBaseValues is the name of the shipped toolworld base policy
// that copies values from its prompt: pretrained on worlds that vary their
// people, titles, texts and files (toolworld.Config.ValuesOnly) after a
// stage of copy drills (pretrain's corpus.drill_share), it solves tasks of
// worlds it never saw (97 / 76 / 34% of levels 1 / 2 / 3), where
// ToolworldBase, which recalls the classic world's values, solves none.
const ToolworldBaseValues = "toolworld-base-values"

// ToolworldBaseDrift is the name of the shipped toolworld base policy
// that takes an API's name from a worked example in its prompt:
// ToolworldBaseValues continued on worlds that rename half their APIs
// without saying so (toolworld.Config.Drift), where only an example of
// the world shows the new name. On drifted worlds it never saw, a relevant
// example raises its greedy success by 10 to 16 points per level and an
// unrelated one changes it by at most 2: the base of the navigating
// experiment.
const ToolworldBaseDrift = "toolworld-base-drift"

// Prefix marks a model.path that names a shipped policy rather than a
// directory: "builtin:toolworld-base".
const Prefix = "builtin:"

//go:embed toolworld-base toolworld-base-reserved toolworld-base-values toolworld-base-drift
var shipped embed.FS

// ErrUnknown reports a name that no shipped policy has.
var ErrUnknown = errors.New("models: no shipped policy of that name")

// Names lists the shipped policies.
func Names() []string {
	return []string{ToolworldBase, ToolworldBaseReserved, ToolworldBaseValues, ToolworldBaseDrift}
}

// FS returns the files of the shipped policy name (a Hugging Face
// directory with its card), rooted at the directory.
func FS(name string) (fs.FS, error) {
	if !slices.Contains(Names(), name) {
		return nil, fmt.Errorf("%w: %q (shipped: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return fs.Sub(shipped, name)
}

// Digest is the SHA-256 of the shipped policy's files, names and contents
// in name order: what a copy on disk is checked against.
func Digest(name string) (string, error) {
	fsys, err := FS(name)
	if err != nil {
		return "", err
	}
	return digest(fsys)
}

func digest(fsys fs.FS) (string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	h := sha256.New()
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return "", fmt.Errorf("models: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Dir returns a directory on disk holding the shipped policy name: under
// root (empty means the user's cache directory, or the temporary
// directory when there is none), in a subdirectory named after the files'
// digest, written on first use and checked against the digest on every
// use, so that a damaged or altered copy is rewritten rather than loaded.
func Dir(name, root string) (string, error) {
	fsys, err := FS(name)
	if err != nil {
		return "", err
	}
	want, err := digest(fsys)
	if err != nil {
		return "", err
	}
	if root == "" {
		if root, err = os.UserCacheDir(); err != nil || root == "" {
			root = os.TempDir()
		}
		root = filepath.Join(root, "agentevolver", "models")
	}
	dir := filepath.Join(root, name+"-"+want[:16])
	if got, err := digest(os.DirFS(dir)); err == nil && got == want {
		return dir, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	tmp, err := os.MkdirTemp(root, name+".tmp-")
	if err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	defer os.RemoveAll(tmp)
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	for _, e := range entries {
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return "", fmt.Errorf("models: %w", err)
		}
		if err := os.WriteFile(filepath.Join(tmp, e.Name()), data, 0o644); err != nil {
			return "", fmt.Errorf("models: %w", err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process may have written it meanwhile.
		if got, derr := digest(os.DirFS(dir)); derr == nil && got == want {
			return dir, nil
		}
		return "", fmt.Errorf("models: %w", err)
	}
	return dir, nil
}

// Resolve returns path unchanged unless it names a shipped policy
// ("builtin:toolworld-base"), whose directory on disk it then returns
// (see Dir, with the default root).
func Resolve(path string) (string, error) {
	name, ok := strings.CutPrefix(path, Prefix)
	if !ok {
		return path, nil
	}
	return Dir(name, "")
}
