package diplomacy

import (
	"encoding/json"
	"fmt"
	"slices"
)

// MarshalText encodes "A" or "F" ("" for the zero value).
func (t UnitType) MarshalText() ([]byte, error) {
	if t == 0 {
		return []byte{}, nil
	}
	if t != Army && t != Fleet {
		return nil, fmt.Errorf("%w: unit type %d", ErrState, t)
	}
	return []byte(t.String()), nil
}

// UnmarshalText decodes "A" or "F".
func (t *UnitType) UnmarshalText(b []byte) error {
	switch string(b) {
	case "":
		*t = 0
	case "A":
		*t = Army
	case "F":
		*t = Fleet
	default:
		return fmt.Errorf("%w: unit type %q", ErrSyntax, clip(string(b)))
	}
	return nil
}

// MarshalJSON encodes the result as the list of the reference's codes
// ([] for success).
func (r Result) MarshalJSON() ([]byte, error) {
	codes := r.Codes()
	if codes == nil {
		codes = []string{}
	}
	return json.Marshal(codes)
}

// UnmarshalJSON decodes a list of result codes.
func (r *Result) UnmarshalJSON(b []byte) error {
	var codes []string
	if err := json.Unmarshal(b, &codes); err != nil {
		return fmt.Errorf("%w: result: %w", ErrSyntax, err)
	}
	var out Result
	for _, c := range codes {
		i := slices.Index(resultNames, c)
		if i < 0 {
			return fmt.Errorf("%w: result code %q", ErrSyntax, clip(c))
		}
		out |= 1 << i
	}
	*r = out
	return nil
}
