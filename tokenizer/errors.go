package tokenizer

import "errors"

// Errors reported by this package, besides ErrUnknownID.
var (
	// ErrUnsupported reports a tokenizer.json or chat template that uses a
	// component this package does not implement.
	ErrUnsupported = errors.New("tokenizer: unsupported")
	// ErrTooLarge reports an input over a size bound.
	ErrTooLarge = errors.New("tokenizer: input too large")
	// ErrInvalid reports a malformed tokenizer file or token list.
	ErrInvalid = errors.New("tokenizer: invalid tokenizer definition")
	// ErrUnknownRole reports a message role that a chat template cannot
	// render.
	ErrUnknownRole = errors.New("tokenizer: unknown message role")
)
