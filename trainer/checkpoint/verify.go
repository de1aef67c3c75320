package checkpoint

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/trainer/optim"
)

// ErrCorrupt reports a checkpoint that cannot be trusted: a file missing,
// truncated or altered since it was written, state that does not fit the
// configured model. A run that resumes falls back to the previous
// checkpoint; when none is good it fails with this error rather than
// train from fresh weights (package trainer's ErrCorrupt).
var ErrCorrupt = errors.New("checkpoint: corrupt checkpoint")

// ManifestFile lists every other file of a checkpoint directory with its
// size and CRC-32C, written last: a checkpoint whose files do not match it
// was altered or cut short.
const ManifestFile = "manifest.json"

// Bounds on what a checkpoint's small files may hold, checked before
// reading them.
const (
	maxManifestBytes  = 1 << 22
	maxStateMetaBytes = 1 << 26
)

// manifest is the content of ManifestFile.
type manifest struct {
	Version int            `json:"version"`
	Files   []manifestFile `json:"files"`
}

// manifestFile is one file of a checkpoint, its path relative to the
// checkpoint directory in slash form.
type manifestFile struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	CRC32C string `json:"crc32c"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fileCRC returns the size and CRC-32C (hex) of the file at path.
// CRC-32C rather than a cryptographic hash: it guards against torn and
// corrupted writes, not adversaries, and runs at memory speed on the
// multi-gigabyte state of a large model.
func fileCRC(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("read %s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// WriteManifest records every regular file under dir in ManifestFile, to be
// called when everything else is written.
func WriteManifest(dir string) error {
	m := manifest{Version: 1}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if rel == ManifestFile || !d.Type().IsRegular() {
			return nil
		}
		size, sum, err := fileCRC(path)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, manifestFile{Path: filepath.ToSlash(rel), Size: size, CRC32C: sum})
		return nil
	})
	if err != nil {
		return fmt.Errorf("checkpoint: manifest: %w", err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(dir, ManifestFile), append(data, '\n'))
}

// ErrNoManifest reports a checkpoint without a manifest: one written
// before manifests existed, which VerifyManifest cannot check.
var ErrNoManifest = errors.New("checkpoint: no manifest")

// VerifyManifest checks that every file the manifest of dir lists is there
// with its recorded size and checksum; its errors wrap ErrCorrupt, or are
// ErrNoManifest.
func VerifyManifest(dir string) error {
	raw, err := fsutil.ReadFile(filepath.Join(dir, ManifestFile), maxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNoManifest
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, ManifestFile, err)
	}
	if m.Version != 1 || len(m.Files) == 0 {
		return fmt.Errorf("%w: %s: version %d with %d files", ErrCorrupt, ManifestFile, m.Version, len(m.Files))
	}
	var problems []string
	for _, f := range m.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("%w: %s names %q, outside the checkpoint", ErrCorrupt, ManifestFile, f.Path)
		}
		size, sum, err := fileCRC(filepath.Join(dir, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, f.Path+" is missing")
		case err != nil:
			problems = append(problems, err.Error())
		case size != f.Size:
			problems = append(problems, fmt.Sprintf("%s has %d bytes, %d were written", f.Path, size, f.Size))
		case sum != f.CRC32C:
			problems = append(problems, f.Path+" changed since it was written (checksum differs)")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(problems, "; "))
	}
	return nil
}

// stateMeta is the part of GoMLX's checkpoint metadata (state/*.json)
// that says what the binary file holds.
type stateMeta struct {
	Variables []stateVar
}

// stateVar is one saved variable: its GoMLX parameter name
// ("var:/scope/name"), shape and where its bytes lie in the binary file.
type stateVar struct {
	ParameterName string
	Dimensions    []int
	DType         string
	Pos, Length   int
}

// VariableShape is what the configured model expects of a variable
// (ExpectedVariables).
type VariableShape struct {
	dims      []int
	dtype     string
	elemBytes int
	trainable bool
}

// ExpectedVariables returns the variables of a freshly built policy
// context, by parameter name: the weights the configured model has, which
// VerifyState checks saved state against.
func ExpectedVariables(ctx *mlctx.Context) map[string]VariableShape {
	out := map[string]VariableShape{}
	ctx.EnumerateVariables(func(v *mlctx.Variable) {
		s := v.Shape()
		out[v.ParameterName()] = VariableShape{dims: slices.Clone(s.Dimensions), dtype: s.DType.String(), elemBytes: s.DType.Size(), trainable: v.Trainable}
	})
	return out
}

// Names of the optimiser state the RL updater keeps (NewUpdater's AdamW
// scope), which a checkpoint after RL steps must hold.
const (
	rlOptimizerScope = optim.AdamWScope
	globalStepName   = "var://global_step"
)

// VerifyState checks the GoMLX state in dir against the model the
// configuration builds before GoMLX reads a byte of tensor data: one
// metadata file and its binary file; every weight present with the
// expected dtype and shape (LoRA adapters included, when the run has
// them); every other variable an optimiser or accumulator mirror of a
// trainable weight (same shape) or an int64 step counter;
// byte lengths consistent with the shapes. So a checkpoint of another
// model, a transposed tensor or a dimension of a million cannot load, nor
// allocate memory. With rlSteps > 0 the RL optimiser's state must be there
// too.
func VerifyState(dir string, want map[string]VariableShape, rlSteps int) error {
	jsons, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	bins, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(jsons) != 1 || len(bins) != 1 || strings.TrimSuffix(jsons[0], ".json") != strings.TrimSuffix(bins[0], ".bin") {
		return fmt.Errorf("%w: %s should hold one state file pair (.json and .bin), found %d and %d", ErrCorrupt, dir, len(jsons), len(bins))
	}
	raw, err := fsutil.ReadFile(jsons[0], maxStateMetaBytes)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	var meta stateMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, jsons[0], err)
	}
	weightPaths := make(map[string]VariableShape, len(want))
	for name, s := range want {
		weightPaths[strings.TrimPrefix(name, "var:")] = s
	}
	var problems []string
	seen := make(map[string]bool, len(meta.Variables))
	pos := 0
	for _, v := range meta.Variables {
		if seen[v.ParameterName] {
			problems = append(problems, v.ParameterName+" saved twice")
			continue
		}
		seen[v.ParameterName] = true
		exp, ok := want[v.ParameterName]
		if !ok {
			var frozen bool
			exp, frozen, ok = optimizerVariable(v.ParameterName, weightPaths)
			if ok && frozen {
				// Optimiser state of a weight that does not train here: a
				// checkpoint of a run that trained it (without LoRA, or
				// with other target modules).
				problems = append(problems, fmt.Sprintf("%s is optimiser state of a frozen weight (the checkpoint trained weights this run freezes: another actor.lora?)", v.ParameterName))
				continue
			}
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("%s %v is not a variable of the configured model or its optimiser", v.ParameterName, v.Dimensions))
			continue
		}
		if v.DType != exp.dtype || !slices.Equal(v.Dimensions, exp.dims) {
			problems = append(problems, fmt.Sprintf("%s is %s%v, the configured model needs %s%v", v.ParameterName, v.DType, v.Dimensions, exp.dtype, exp.dims))
			continue
		}
		n := exp.elemBytes
		for _, d := range exp.dims {
			n *= d
		}
		if v.Pos != pos || v.Length != n {
			problems = append(problems, fmt.Sprintf("%s: %d bytes at %d, want %d at %d", v.ParameterName, v.Length, v.Pos, n, pos))
			continue
		}
		pos += n
	}
	for name := range want {
		if !seen[name] {
			problems = append(problems, name+" is missing")
		}
	}
	if rlSteps > 0 {
		if !seen["var:"+rlOptimizerScope+"/step"] {
			problems = append(problems, fmt.Sprintf("the optimiser state (%s) of the %d RL steps done is missing", rlOptimizerScope, rlSteps))
		} else {
			for name, s := range want {
				path := strings.TrimPrefix(name, "var:")
				if s.trainable && (!seen["var:"+rlOptimizerScope+"/m"+path] || !seen["var:"+rlOptimizerScope+"/v"+path]) {
					problems = append(problems, "the optimiser moments of "+name+" are missing")
				}
			}
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		const maxListed = 8
		if len(problems) > maxListed {
			problems = append(problems[:maxListed], fmt.Sprintf("and %d more", len(problems)-maxListed))
		}
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, jsons[0], strings.Join(problems, "; "))
	}
	return nil
}

// optimizerVariable returns the expected shape of name when it is
// optimiser or accumulator state: a variable under /trainer/ whose path
// ends in a weight's path (mirroring its shape), or an int64 scalar step
// counter. frozen reports a mirror of a weight that is not trainable (the
// base of a LoRA run), which no optimiser of this run keeps.
func optimizerVariable(name string, weightPaths map[string]VariableShape) (s VariableShape, frozen, ok bool) {
	step := VariableShape{dtype: "Int64", elemBytes: 8}
	if name == globalStepName {
		return step, false, true
	}
	path, ok := strings.CutPrefix(name, "var:/trainer/")
	if !ok {
		return VariableShape{}, false, false
	}
	if strings.HasSuffix(path, "/step") && !strings.Contains(strings.TrimSuffix(path, "/step"), "/model/") {
		return step, false, true
	}
	for i := range len(path) {
		if path[i] != '/' {
			continue
		}
		if s, ok := weightPaths[path[i:]]; ok {
			frozen := !s.trainable
			s.trainable = false
			return s, frozen, true
		}
	}
	return VariableShape{}, false, false
}
