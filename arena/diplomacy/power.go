package diplomacy

import (
	"fmt"
	"strings"
)

// Power is one of the seven great powers. The zero value is NoPower.
type Power uint8

// The powers, in the reference's (alphabetical) order.
const (
	NoPower Power = iota
	Austria
	England
	France
	Germany
	Italy
	Russia
	Turkey
)

// NumPowers is the number of powers of the standard game.
const NumPowers = 7

var powerNames = [...]string{"", "AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"}

// Powers returns the seven powers in alphabetical order.
func Powers() []Power {
	return []Power{Austria, England, France, Germany, Italy, Russia, Turkey}
}

// String returns the power's upper-case name ("FRANCE"), the spelling of
// the reference library; NoPower is "".
func (p Power) String() string {
	if int(p) >= len(powerNames) {
		return fmt.Sprintf("Power(%d)", int(p))
	}
	return powerNames[p]
}

// Valid reports whether p is one of the seven powers.
func (p Power) Valid() bool { return p >= Austria && p <= Turkey }

// ParsePower reads a power's name, case-insensitively and ignoring
// surrounding space.
func ParsePower(s string) (Power, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	for i := Austria; i <= Turkey; i++ {
		if powerNames[i] == s {
			return i, nil
		}
	}
	return NoPower, fmt.Errorf("%w: unknown power %q", ErrSyntax, clip(s))
}

// MarshalText encodes the power as its name ("" for NoPower).
func (p Power) MarshalText() ([]byte, error) {
	if p == NoPower {
		return []byte{}, nil
	}
	if !p.Valid() {
		return nil, fmt.Errorf("diplomacy: cannot encode %v", p)
	}
	return []byte(p.String()), nil
}

// UnmarshalText decodes a power's name ("" is NoPower).
func (p *Power) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = NoPower
		return nil
	}
	v, err := ParsePower(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// clip bounds user-supplied text quoted in error messages.
func clip(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
