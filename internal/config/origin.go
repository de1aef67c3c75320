package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// keyLines returns the line of every mapping key of a YAML text by its
// dotted path. Keys it cannot place (text that does not parse, keys that
// merge keys bring in) are missing.
func keyLines(data []byte) (lines map[string]int) {
	lines = map[string]int{}
	defer func() {
		if recover() != nil {
			lines = map[string]int{} // the decoder reports malformed text
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return lines
	}
	for _, doc := range f.Docs {
		addKeyLines(doc.Body, "", lines, 0)
	}
	return lines
}

func addKeyLines(n ast.Node, prefix string, lines map[string]int, depth int) {
	if depth > 2*MaxFlowDepth {
		return
	}
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, v := range n.Values {
			addKeyLines(v, prefix, lines, depth+1)
		}
	case *ast.MappingValueNode:
		if n.Key == nil {
			return
		}
		tok := n.Key.GetToken()
		if tok == nil {
			return
		}
		path := joinKey(prefix, tok.Value)
		if _, seen := lines[path]; !seen && tok.Position != nil {
			lines[path] = tok.Position.Line
		}
		addKeyLines(n.Value, path, lines, depth+1)
	case *ast.AnchorNode:
		addKeyLines(n.Value, prefix, lines, depth+1)
	case *ast.TagNode:
		addKeyLines(n.Value, prefix, lines, depth+1)
	}
}

// locateTypeError finds the first key (in sorted order) of the merged
// tree whose value does not decode into its field of struct type t, and
// returns an error naming the key, where it was set and the type wanted;
// nil when every key decodes on its own.
func locateTypeError(tree map[string]any, t reflect.Type, prefix string, origins map[string]string) error {
	t = structType(t)
	if t == nil {
		return nil
	}
	fields := yamlFields(t)
	for _, k := range slices.Sorted(maps.Keys(tree)) {
		ft, ok := fields[k]
		if !ok {
			continue
		}
		path := joinKey(prefix, k)
		if sub, ok := tree[k].(map[string]any); ok && structType(ft) != nil {
			if err := locateTypeError(sub, ft, path, origins); err != nil {
				return err
			}
			continue
		}
		if sub, ok := tree[k].(map[string]any); ok && ft.Kind() == reflect.Map && structType(ft.Elem()) != nil {
			// A mapping of structs (named entries): each entry's keys.
			for _, e := range slices.Sorted(maps.Keys(sub)) {
				if entry, ok := sub[e].(map[string]any); ok {
					if err := locateTypeError(entry, ft.Elem(), joinKey(path, e), origins); err != nil {
						return err
					}
				}
			}
		}
		data, err := encode(map[string]any{k: tree[k]})
		if err != nil {
			continue
		}
		if derr := decodeRaw(data, reflect.New(t).Interface()); derr != nil {
			at := origins[path]
			if at == "" {
				at = "the defaults"
			}
			return fmt.Errorf("%w: %s (set in %s): want %s, got %s", ErrInvalid, path, at, typeName(ft), describe(tree[k]))
		}
	}
	return nil
}

// decodeRaw decodes data into out strictly, returning the decoder's own
// error (a panic becomes an error).
func decodeRaw(data []byte, out any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the decoder failed: %v", r)
		}
	}()
	return yaml.UnmarshalWithOptions(data, out, yaml.DisallowUnknownField())
}

// typeName describes a field type to a user who writes YAML.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.PkgPath() == "time" && t.Name() == "Duration":
		return "a duration (such as 30s or 5m)"
	case t.Kind() == reflect.Struct:
		return "a mapping of keys"
	case t.Kind() == reflect.Map:
		return "a mapping"
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return "a list of " + typeName(t.Elem())
	case t.Kind() == reflect.Bool:
		return "a boolean (true or false)"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr:
		return "an integer"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.String:
		return "a string"
	}
	return t.String()
}

// describe shows a value of the merged tree in an error message.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		if len(t) > 60 {
			t = t[:60] + "..."
		}
		return "the string " + strconv.Quote(t)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case float64:
		return "the number " + strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		return "the boolean " + strconv.FormatBool(t)
	default:
		s := fmt.Sprint(t)
		if len(s) > 60 {
			s = s[:60] + "..."
		}
		return "the value " + strings.TrimSpace(s)
	}
}
