package model

import "errors"

// Sentinel errors of the package; test for them with errors.Is. Errors
// returned by this package wrap them with the details.
var (
	// ErrBadConfig reports an invalid or unsupported model configuration.
	ErrBadConfig = errors.New("model: bad config")
	// ErrMissingTensor reports a checkpoint without a tensor the
	// configuration needs.
	ErrMissingTensor = errors.New("model: missing tensor")
	// ErrTensorMismatch reports a checkpoint tensor whose shape or dtype
	// does not match the configuration.
	ErrTensorMismatch = errors.New("model: tensor mismatch")
	// ErrBadCheckpoint reports a malformed checkpoint file or directory.
	ErrBadCheckpoint = errors.New("model: bad checkpoint")
	// ErrBadInput reports a request with inconsistent shapes or values
	// (ragged rows, token ids outside the vocabulary, too long sequences).
	ErrBadInput = errors.New("model: bad input")
	// ErrGraph reports a failure while building or running a computation
	// graph; it wraps what GoMLX reported.
	ErrGraph = errors.New("model: graph failure")
)
