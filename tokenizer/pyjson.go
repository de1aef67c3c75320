package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Bounds of the JSON that pythonJSON accepts.
const (
	maxPythonJSON      = 4 << 20
	maxPythonJSONDepth = 500
)

// pythonJSON re-encodes a JSON document the way Python's
// json.dumps(value, ensure_ascii=False) writes it after json.loads, which is
// what the tojson filter of Hugging Face chat templates renders: ", " and ": "
// separators, keys in their order (a repeated key keeps its first place and
// its last value), non-ASCII text unescaped, integers verbatim and other
// numbers in Python's float repr.
func pythonJSON(raw string) (string, error) {
	if len(raw) > maxPythonJSON {
		return "", fmt.Errorf("%w: JSON of %d bytes", ErrTooLarge, len(raw))
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	v, err := readPyValue(dec, 0)
	if err != nil {
		return "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errors.New("tokenizer: JSON: data after the value")
	}
	var b strings.Builder
	if err := writePyValue(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// pyObject is a JSON object with its key order kept.
type pyObject struct {
	keys []string
	vals map[string]any
}

func readPyValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxPythonJSONDepth {
		return nil, fmt.Errorf("%w: JSON nested deeper than %d", ErrTooLarge, maxPythonJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("tokenizer: JSON: %w", err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		obj := &pyObject{vals: make(map[string]any)}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("tokenizer: JSON: %w", err)
			}
			key, _ := kt.(string)
			v, err := readPyValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			if _, seen := obj.vals[key]; !seen {
				obj.keys = append(obj.keys, key)
			}
			obj.vals[key] = v
		}
		_, err = dec.Token()
		return obj, err
	case '[':
		list := []any{}
		for dec.More() {
			v, err := readPyValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err = dec.Token()
		return list, err
	}
	return nil, fmt.Errorf("tokenizer: JSON: unexpected %v", d)
}

func writePyValue(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		writePyString(b, v)
	case json.Number:
		s, err := pyNumber(string(v))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writePyValue(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *pyObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, k)
			b.WriteString(": ")
			if err := writePyValue(b, v.vals[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("tokenizer: JSON: unexpected %T", v)
	}
	return nil
}

// writePyString quotes s as json.dumps(ensure_ascii=False) does.
func writePyString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xF])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// pyNumber writes a JSON number as Python prints the int or float that
// json.loads makes of it.
func pyNumber(s string) (string, error) {
	if !strings.ContainsAny(s, ".eE") {
		// An int: arbitrary precision, printed verbatim but for "-0".
		if s == "-0" {
			return "0", nil
		}
		return s, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return "", fmt.Errorf("tokenizer: JSON number %q: %w", s, err)
	}
	switch {
	case math.IsInf(f, 1):
		return "Infinity", nil
	case math.IsInf(f, -1):
		return "-Infinity", nil
	}
	// repr(float): the shortest digits that round-trip, in positional
	// notation when the decimal exponent is in [-4, 16), with ".0" when
	// there is no fraction; otherwise as d.ddde±XX.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e, nil
	}
	out := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(out, ".") {
		out += ".0"
	}
	return out, nil
}

// jsonValid reports whether s holds one JSON value.
func jsonValid(s string) bool { return json.Valid(bytes.TrimSpace([]byte(s))) }
