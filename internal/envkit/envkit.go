package envkit

import "context"

// Kind returns a new sentinel error with text msg that also matches
// parent under errors.Is: an environment's ErrUnknownTask, say, that
// matches envclient.ErrBadRequest, so that envservice answers it with the
// right status while callers can still tell it from other bad requests.
// Each call returns a distinct error.
func Kind(msg string, parent error) error { return &kindError{msg, parent} }

type kindError struct {
	msg    string
	parent error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.parent }

// Usable is the check that opens every method of an environment's
// Instance: ctx's error once ctx has ended, else errClosed (the
// environment's ErrClosed) once the instance is closed, else nil.
func Usable(ctx context.Context, closed bool, errClosed error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if closed {
		return errClosed
	}
	return nil
}
