package cues

import (
	"encoding/json"
	"io"
)

// writeLines writes each value as one JSON line.
func writeLines[T any](w io.Writer, vs []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}
