package diplomacy

import (
	"errors"
	"fmt"
)

// Errors of the package, for errors.Is.
var (
	// ErrSyntax reports text that is not an order, a location, a power or a
	// phase name of the standard syntax.
	ErrSyntax = errors.New("diplomacy: syntax error")
	// ErrIllegal reports an order that the rules do not allow for the
	// current position and phase (no such unit, not the power's unit, not
	// adjacent, a build on a foreign centre, ...). The unit then holds (a
	// movement phase) or is disbanded (a retreat phase).
	ErrIllegal = errors.New("diplomacy: illegal order")
	// ErrMap reports map data that fails validation.
	ErrMap = errors.New("diplomacy: invalid map")
	// ErrState reports a position that is not consistent with the map
	// (two units in one province, a fleet inland, ...) or an action out of
	// turn (orders after the game ended).
	ErrState = errors.New("diplomacy: invalid state")
)

func illegalState(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrState, fmt.Sprintf(format, args...))
}
