package pretrain

import "errors"

// ErrConfig reports a configuration that cannot run.
var ErrConfig = errors.New("pretrain: invalid config")

// ErrCheckMismatch reports a shipped policy whose recorded check no longer
// reproduces: the weights and the code have drifted apart.
var ErrCheckMismatch = errors.New("pretrain: the card's check does not reproduce")
