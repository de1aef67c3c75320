package jsonscan

import (
	"encoding/json"
	"strings"
	"unicode"
)

// Objects calls visit, in order, with every JSON object in s that opens
// with `{` followed (after white space) by a string key, decoding numbers
// as json.Number. Text after an object that decodes resumes the scan; an
// object that does not decode is skipped one byte on. At most maxAttempts
// objects are decoded, which bounds the work on hostile text.
//
// badJSON is the decode error of the first object that starts like a
// call ({"name" ...) but is not valid JSON, so a caller can say why a
// call it expected is missing; empty when there is none.
func Objects(s string, maxAttempts int, visit func(obj map[string]json.RawMessage)) (badJSON string) {
	attempts := 0
	for i := 0; i < len(s) && attempts < maxAttempts; {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			break
		}
		pos := i + j
		rest := strings.TrimLeftFunc(s[pos+1:], unicode.IsSpace)
		if !strings.HasPrefix(rest, `"`) {
			i = pos + 1
			continue
		}
		attempts++
		dec := json.NewDecoder(strings.NewReader(s[pos:]))
		dec.UseNumber()
		var obj map[string]json.RawMessage
		if err := dec.Decode(&obj); err != nil {
			if badJSON == "" && strings.HasPrefix(rest, `"name"`) {
				badJSON = err.Error()
			}
			i = pos + 1
			continue
		}
		i = pos + int(dec.InputOffset())
		visit(obj)
	}
	return badJSON
}
