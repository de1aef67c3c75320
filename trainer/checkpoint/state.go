package checkpoint

import (
	"fmt"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"

	"github.com/org/agentevolver/trainer/optim"
)

// SaveState writes every variable of ctx (a policy's weights and the
// optimiser state a Supervised or Updater keeps beside them) into dir with
// GoMLX's checkpoint format; LoadState reads it back.
func SaveState(ctx *mlctx.Context, dir string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: checkpoint state: %v", optim.ErrGraph, p)
		}
	}()
	prev := ctx.Loader()
	// Build attaches the handler to ctx as its variable loader; restore
	// the previous one so saves do not chain loaders.
	defer ctx.SetLoader(prev)
	h, err := checkpoints.Build(ctx).Dir(dir).Keep(1).Done()
	if err != nil {
		return fmt.Errorf("checkpoint: state: %w", err)
	}
	if err := h.Save(); err != nil {
		return fmt.Errorf("checkpoint: state: %w", err)
	}
	return nil
}

// LoadState loads every variable SaveState wrote in dir into ctx,
// creating the optimiser's variables; the trainer's own state (moments,
// step counts, accumulators) is left untrainable, as when it was made.
// The caller checks beforehand that dir holds state of the same model.
func LoadState(ctx *mlctx.Context, dir string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: restore checkpoint state: %v", optim.ErrGraph, p)
		}
	}()
	prev := ctx.Loader()
	defer ctx.SetLoader(prev)
	if _, err := checkpoints.Build(ctx).Dir(dir).Immediate().Done(); err != nil {
		return fmt.Errorf("checkpoint: restore state: %w", err)
	}
	// The loader creates every variable trainable; the trainer's own state
	// (moments, step counts, accumulators) never is, as when it was made.
	for v := range ctx.IterVariables() {
		if optim.IsState(v.Scope()) {
			v.SetTrainable(false)
		}
	}
	return nil
}
