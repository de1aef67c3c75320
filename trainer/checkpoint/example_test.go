package checkpoint_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/checkpoint"
)

// Save a context's variables, seal the directory, then check and restore
// it into a context built the same way.
func ExampleSaveState() {
	backend, err := model.NewBackend("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	build := func() *mlctx.Context {
		ctx := mlctx.New()
		ctx.In("model").VariableWithValue("w", []float32{1, 2, 3})
		return ctx
	}
	dir, err := os.MkdirTemp("", "ckpt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	state := filepath.Join(dir, "state")
	if err := checkpoint.SaveState(build(), state); err != nil {
		fmt.Println(err)
		return
	}
	if err := checkpoint.WriteManifest(dir); err != nil {
		fmt.Println(err)
		return
	}
	fresh := build()
	fmt.Println("manifest:", checkpoint.VerifyManifest(dir))
	fmt.Println("state:", checkpoint.VerifyState(state, checkpoint.ExpectedVariables(fresh), 0))
	fmt.Println("load:", checkpoint.LoadState(fresh, state))

	// A file changed after the manifest was written is caught.
	bins, _ := filepath.Glob(filepath.Join(state, "*.bin"))
	if err := os.WriteFile(bins[0], []byte("torn"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("altered:", errors.Is(checkpoint.VerifyManifest(dir), checkpoint.ErrCorrupt))
	// Output:
	// manifest: <nil>
	// state: <nil>
	// load: <nil>
	// altered: true
}
