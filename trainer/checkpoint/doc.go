// Package checkpoint saves and restores the GoMLX state of a policy and
// its optimiser, and checks a checkpoint before a byte of it is loaded.
//
// [SaveState] writes every variable of a context (the policy's weights and
// the optimiser state an optim.Updater or optim.Supervised keeps beside
// them) with GoMLX's checkpoint format; [LoadState] reads it back. A
// checkpoint directory is sealed with [WriteManifest] (every file's size
// and CRC-32C, written last) and checked with [VerifyManifest]; and
// [VerifyState] compares the saved variables with those a freshly built
// model has ([ExpectedVariables]): names, dtypes, shapes and byte ranges,
// before GoMLX reads any tensor data, so a checkpoint of another model, a
// transposed tensor or a dimension of a million cannot load or allocate.
// Every such failure wraps [ErrCorrupt].
//
// Package trainer lays checkpoints out under a run (step_NNNNNN, the
// latest file, the resolved configuration compared on resume) with these;
// package pretrain uses them alone.
package checkpoint
