package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// ErrAliasExpansion reports YAML whose aliases (*name) and merge keys
// (<<: *name) would expand it far beyond its own size, such as a "billion
// laughs" alias bomb. Errors that wrap it also wrap [ErrInvalid].
var ErrAliasExpansion = errors.New("YAML aliases expand too far")

// ErrTooComplex reports YAML with more mapping keys or deeper flow nesting
// than a configuration needs and than github.com/goccy/go-yaml parses in
// reasonable time (its cost grows with the square of both). Errors that
// wrap it also wrap [ErrInvalid].
var ErrTooComplex = errors.New("YAML too complex")

// The expansion budget of a YAML text of n bytes is
// expansionBase + expansionPerByte*n units; a node costs one unit and a
// scalar one more per byte of its text, so the budget also bounds the size
// of the configuration once written back as YAML.
//
// Anchors and aliases are kept rather than rejected: no configuration or
// experiment file in this repository uses them today (examples/ and the
// testdata hold none), but they are ordinary YAML and the natural way to
// share a block between sections ("<<: *defaults"), and bounding them
// costs one linear pass. The base keeps any small file's sharing working
// (a few hundred bytes merged a hundred times) and costs at most about a
// tenth of a second; the per-byte allowance lets a larger file expand to
// four times its size, more than sharing needs, so that a file with aliases
// costs at most about five times a file without (measured here: 4 s for a
// 1 MiB flow list without aliases), where a bomb's expansion is exponential
// in its length.
const (
	expansionBase    = 1 << 16
	expansionPerByte = 4
)

// MaxKeys bounds the mapping keys of one YAML text (a layer, an override,
// an experiment file) and the keys of any one mapping of a merged
// configuration. The YAML parser's time grows with the square of a
// mapping's keys: 10,000 keys take it well under a second, 400,000 (a 4 MiB
// file of short keys) take minutes. The trainer's whole configuration has a
// few hundred keys.
const MaxKeys = 10_000

// MaxFlowDepth bounds the nesting of flow collections ([...] and {...}) in
// one YAML text, whose cost to the parser also grows with its square.
const MaxFlowDepth = 100

// CheckYAML reports YAML that would cost the decoder or this package more
// than time linear in len(data): more than MaxKeys mapping keys, flow
// collections nested deeper than MaxFlowDepth (errors wrapping
// [ErrTooComplex]), or aliases and merge keys whose expansion (every alias
// and merge key replaced by a copy of its anchor's value) would exceed a
// budget linear in len(data) (errors wrapping [ErrAliasExpansion]). Errors
// also wrap [ErrInvalid]. CheckYAML itself runs in time linear in len(data)
// and must run before data is decoded: the decoder of
// github.com/goccy/go-yaml copies an anchor's value for each merge key, so
// nested merge keys cost it exponential time, and every later walk of the
// decoded value (which shares an anchor's value among its aliases) visits
// each alias's copy. Text that does not parse is left for the decoder to
// report: CheckYAML returns nil for it. [Apply] and [LoadFiles] check every
// layer and override this way.
func CheckYAML(data []byte) error {
	if err := checkYAML(data); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// checkYAML is CheckYAML without ErrInvalid.
func checkYAML(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = nil // the decoder reports malformed text (and decodeAny recovers its panics)
		}
	}()
	tokens := lexer.Tokenize(string(data))
	keys, depth := 0, 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.MappingValueType:
			if keys++; keys > MaxKeys {
				return fmt.Errorf("%w: more than %d mapping keys (line %d)", ErrTooComplex, MaxKeys, tk.Position.Line)
			}
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > MaxFlowDepth {
				return fmt.Errorf("%w: flow collections nested more than %d deep (line %d)", ErrTooComplex, MaxFlowDepth, tk.Position.Line)
			}
		case token.SequenceEndType, token.MappingEndType:
			depth = max(depth-1, 0)
		}
	}
	f, perr := parser.Parse(tokens, 0)
	if perr != nil {
		return nil
	}
	budget := int64(expansionBase) + int64(expansionPerByte)*int64(len(data))
	c := expansion{budget: budget, anchors: map[string]int64{}}
	var total int64
	for _, doc := range f.Docs {
		total = c.add(total, c.size(doc))
	}
	if total > budget {
		return fmt.Errorf("%w: its aliases and merge keys would expand %d bytes of YAML past %d units (one per node and per scalar byte), as an alias bomb does; share less, or write the values out",
			ErrAliasExpansion, len(data), budget)
	}
	return nil
}

// checkTreeKeys reports a mapping of the merged tree with more than MaxKeys
// keys (several layers may each add keys to one mapping).
func checkTreeKeys(v any, path string) error {
	switch t := v.(type) {
	case map[string]any:
		if len(t) > MaxKeys {
			return fmt.Errorf("%w: %w: mapping %q has %d keys, more than %d", ErrInvalid, ErrTooComplex, path, len(t), MaxKeys)
		}
		for k, x := range t {
			if err := checkTreeKeys(x, strings.TrimPrefix(path+"."+k, ".")); err != nil {
				return err
			}
		}
	case []any:
		for i, x := range t {
			if err := checkTreeKeys(x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// expansion computes the expanded size of YAML nodes with each anchor's
// size memoised, so a walk visits each node once. Sizes saturate just past
// budget.
type expansion struct {
	budget int64
	// anchors holds the largest expanded size of each anchor name defined
	// so far in document order (a later anchor of the same name replaces
	// the earlier one in the decoder; the largest is the safe bound).
	anchors map[string]int64
}

func (c *expansion) add(a, b int64) int64 {
	if s := a + b; s <= c.budget {
		return s
	}
	return c.budget + 1
}

// size returns the expanded size of n: one unit per node, plus the length
// of each scalar's text, with an alias counted as its anchor's value.
func (c *expansion) size(n ast.Node) int64 {
	switch n := n.(type) {
	case nil:
		return 0
	case *ast.DocumentNode:
		return c.size(n.Body)
	case *ast.MappingNode:
		s := int64(1)
		for _, v := range n.Values {
			s = c.add(s, c.size(v))
		}
		return s
	case *ast.MappingValueNode:
		return c.add(c.size(n.Key), c.size(n.Value))
	case *ast.MappingKeyNode:
		return c.add(1, c.size(n.Value))
	case *ast.SequenceNode:
		s := int64(1)
		for _, v := range n.Values {
			s = c.add(s, c.size(v))
		}
		return s
	case *ast.SequenceEntryNode:
		return c.size(n.Value)
	case *ast.AnchorNode:
		s := c.size(n.Value)
		if n.Name != nil {
			name := n.Name.GetToken().Value
			c.anchors[name] = max(c.anchors[name], s)
		}
		return s
	case *ast.AliasNode:
		if n.Value == nil || n.Value.GetToken() == nil {
			return 1
		}
		if s, ok := c.anchors[n.Value.GetToken().Value]; ok {
			return max(s, 1)
		}
		return 1 // unknown here (or recursive): the decoder reports or nils it
	case *ast.TagNode:
		return c.add(1, c.size(n.Value))
	case *ast.LiteralNode:
		if n.Value == nil {
			return 1
		}
		return c.size(n.Value)
	case *ast.CommentGroupNode, *ast.CommentNode, *ast.DirectiveNode:
		return 0
	default:
		if tok := n.GetToken(); tok != nil {
			return c.add(1, int64(len(tok.Value)))
		}
		return 1
	}
}

// decodeAny decodes one YAML text into a generic value after checking its
// alias expansion. A panic of the decoder (github.com/goccy/go-yaml panics
// on some malformed input, such as goccy/go-yaml#735, "set: !x" where a list
// is expected) is returned as an error. Errors do not wrap ErrInvalid; the
// caller says which text failed.
func decodeAny(data []byte) (v any, err error) {
	if err := checkYAML(data); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("malformed YAML (the decoder failed: %v)", r)
		}
	}()
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeStrict decodes YAML the package wrote itself into out, unknown
// fields being errors, which wrap ErrInvalid; so does a decoder panic.
func decodeStrict(data []byte, out any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: malformed YAML (the decoder failed: %v)", ErrInvalid, r)
		}
	}()
	if err := yaml.UnmarshalWithOptions(data, out, yaml.DisallowUnknownField()); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalid, yaml.FormatError(err, false, true))
	}
	return nil
}

// encode writes v as YAML; an encoder panic is an error.
func encode(v any) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("the YAML encoder failed: %v", r)
		}
	}()
	return yaml.Marshal(v)
}
