package config

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/org/agentevolver/internal/fsutil"
)

// MaxFileSize bounds one configuration file.
const MaxFileSize = 4 << 20

// ErrInvalid reports a configuration that cannot be loaded: unknown keys,
// malformed YAML or overrides, unresolved placeholders, mistyped values.
var ErrInvalid = errors.New("config: invalid configuration")

// Layer is one source of configuration: a name for error messages and its
// YAML text.
type Layer struct {
	Name string
	YAML []byte
}

// LoadFiles reads the named YAML files and applies them with overrides; see
// Apply.
func LoadFiles(out any, files []string, overrides []string) error {
	_, err := LoadFilesWith(out, files, overrides, Options{})
	return err
}

// LoadFilesWith is LoadFiles with options; see ApplyWith.
func LoadFilesWith(out any, files []string, overrides []string, opts Options) (warnings []string, err error) {
	layers := make([]Layer, 0, len(files))
	for _, name := range files {
		data, err := readBounded(name)
		if err != nil {
			return nil, err
		}
		layers = append(layers, Layer{Name: name, YAML: data})
	}
	return ApplyWith(out, layers, overrides, opts)
}

func readBounded(name string) ([]byte, error) {
	data, err := fsutil.ReadFile(name, MaxFileSize)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrInvalid, name, MaxFileSize)
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return data, nil
}

// Apply merges layers and overrides over the values already in out (a
// pointer to a struct holding the defaults), resolves placeholders and
// decodes the result back into out. Keys are the fields' yaml tag names. On
// error out is left unchanged. Each layer and override is checked with
// [CheckYAML] before it is decoded, so that no text costs more than time
// linear in its size (alias bombs, too many keys and deep nesting are
// errors wrapping [ErrAliasExpansion] or [ErrTooComplex]), and a panic of
// the YAML decoder is an error wrapping [ErrInvalid]. A value of the wrong
// type is reported with its key and where it was set: the layer's name
// and line, or the override.
func Apply(out any, layers []Layer, overrides []string) error {
	_, err := ApplyWith(out, layers, overrides, Options{})
	return err
}

// ApplyWith is Apply with options: keys of another schema mapped to out's
// through opts.Aliases. It returns one warning per layer (and per
// override) that set keys the aliases mark as having no counterpart,
// naming them; those keys are ignored.
func ApplyWith(out any, layers []Layer, overrides []string, opts Options) (warnings []string, err error) {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("config: Apply needs a pointer to a struct, got %T", out)
	}
	root := rv.Elem().Type()
	tree, err := toTree(out)
	if err != nil {
		return nil, err
	}
	origins := map[string]string{}
	ignoredTree := map[string]any{} // the ignored keys' values, for placeholders
	for _, l := range layers {
		doc, err := decodeAny(l.YAML)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, l.Name, err)
		}
		if doc == nil {
			continue
		}
		m, ok := normalize(doc).(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s: the top level must be a mapping", ErrInvalid, l.Name)
		}
		written := m
		m, ignored, err := rewriteLayer(root, opts.Aliases, l, m, origins)
		if err != nil {
			return nil, err
		}
		for _, k := range ignored {
			v, _ := lookupPath(written, k)
			setPath(ignoredTree, k, v)
		}
		if len(ignored) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: ignored %s with no counterpart here: %s", l.Name, plural(len(ignored), "key"), strings.Join(ignored, ", ")))
		}
		merge(tree, m)
	}
	for _, o := range overrides {
		given := o
		if key, raw, ok := strings.Cut(o, "="); ok {
			key = strings.TrimSpace(key)
			dest, ignored := aliasPath(root, opts.Aliases, key)
			if ignored {
				warnings = append(warnings, fmt.Sprintf("override %q: ignored key %s with no counterpart here", o, key))
				continue
			}
			if dest != key {
				o = dest + "=" + raw
			}
			origins[dest] = fmt.Sprintf("the override %q", given)
		}
		if err := setOverride(tree, o); err != nil {
			return nil, err
		}
	}
	if err := checkKeys(tree, root, ""); err != nil {
		return nil, err
	}
	if err := checkTreeKeys(tree, ""); err != nil {
		return nil, err
	}
	// A placeholder may name a key by its alias (the other schema's
	// files refer to their own keys), even one that is ignored.
	fallback := func(ref string) (any, bool) {
		if dest, ignoredKey := aliasPath(root, opts.Aliases, ref); !ignoredKey && dest != ref {
			return lookupPath(tree, dest)
		}
		return lookupPath(ignoredTree, ref)
	}
	if err := resolvePlaceholdersWith(tree, fallback); err != nil {
		return nil, err
	}
	data, err := encode(tree)
	if err != nil {
		return nil, fmt.Errorf("config: encode merged configuration: %w", err)
	}
	fresh := reflect.New(root)
	fresh.Elem().Set(rv.Elem())
	if err := decodeStrict(data, fresh.Interface()); err != nil {
		// The decoder's position is in the merged text, which no user
		// wrote: name the key and where it was set instead.
		if lerr := locateTypeError(tree, root, "", origins); lerr != nil {
			return nil, lerr
		}
		return nil, err
	}
	rv.Elem().Set(fresh.Elem())
	return warnings, nil
}

// plural returns "1 key" or "n keys".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// toTree encodes the defaults as a generic tree of maps.
func toTree(v any) (map[string]any, error) {
	data, err := encode(v)
	if err != nil {
		return nil, fmt.Errorf("config: encode defaults: %w", err)
	}
	doc, err := decodeAny(data)
	if err != nil {
		return nil, fmt.Errorf("config: decode defaults: %w", err)
	}
	m, _ := normalize(doc).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// normalize turns map[any]any (and nested ones) into map[string]any.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalize(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = normalize(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = normalize(x)
		}
		return t
	default:
		return v
	}
}

// merge copies src over dst, recursing into mappings present in both.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// setPath sets the value at dotted path key of tree, replacing whatever
// is in the way.
func setPath(tree map[string]any, key string, v any) {
	path := strings.Split(key, ".")
	node := tree
	for _, p := range path[:len(path)-1] {
		next, ok := node[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			node[p] = next
		}
		node = next
	}
	node[path[len(path)-1]] = v
}

// setOverride applies one "a.b.c=value" override; value is a YAML scalar or
// flow collection ("3", "true", "[1, 2]", "text").
func setOverride(tree map[string]any, o string) error {
	key, raw, ok := strings.Cut(o, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return fmt.Errorf("%w: override %q is not key=value", ErrInvalid, o)
	}
	path := strings.Split(key, ".")
	for _, p := range path {
		if p == "" {
			return fmt.Errorf("%w: override %q has an empty key segment", ErrInvalid, o)
		}
	}
	var value any = raw
	if strings.TrimSpace(raw) != "" {
		parsed, err := decodeAny([]byte(raw))
		switch {
		case errors.Is(err, ErrAliasExpansion), errors.Is(err, ErrTooComplex):
			return fmt.Errorf("%w: override %q: %w", ErrInvalid, o, err)
		case err == nil:
			value = normalize(parsed) // typed: numbers, bools, lists, null
		} // else not YAML: keep the text as it is
	}
	return setOverrideValue(tree, path, value, o)
}

// setOverrideValue sets path of tree to value; o names the override in
// errors.
func setOverrideValue(tree map[string]any, path []string, value any, o string) error {
	node := tree
	for i, p := range path[:len(path)-1] {
		next, ok := node[p].(map[string]any)
		if !ok {
			if _, exists := node[p]; exists && node[p] != nil {
				return fmt.Errorf("%w: override %q: %s is not a mapping", ErrInvalid, o, strings.Join(path[:i+1], "."))
			}
			next = map[string]any{}
			node[p] = next
		}
		node = next
	}
	node[path[len(path)-1]] = value
	return nil
}

// checkKeys reports the first key of tree (in sorted order) that t has no
// field for.
func checkKeys(tree map[string]any, t reflect.Type, prefix string) error {
	fields := yamlFields(t)
	for _, k := range slices.Sorted(maps.Keys(tree)) {
		ft, ok := fields[k]
		name := prefix + k
		if !ok {
			known := make([]string, 0, len(fields))
			for f := range fields {
				known = append(known, f)
			}
			sort.Strings(known)
			return fmt.Errorf("%w: unknown key %q (known keys here: %s)", ErrInvalid, name, strings.Join(known, ", "))
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sub, ok := tree[k].(map[string]any); ok && ft.Kind() == reflect.Struct {
			if err := checkKeys(sub, ft, name+"."); err != nil {
				return err
			}
		}
		// A mapping of structs (named entries): each entry's keys.
		if sub, ok := tree[k].(map[string]any); ok && ft.Kind() == reflect.Map && structType(ft.Elem()) != nil {
			for _, e := range slices.Sorted(maps.Keys(sub)) {
				if entry, ok := sub[e].(map[string]any); ok {
					if err := checkKeys(entry, structType(ft.Elem()), name+"."+e+"."); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// yamlFields maps the YAML keys of struct t to field types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

var placeholder = regexp.MustCompile(`\$\{([A-Za-z0-9_.\-]+)\}`)

// resolvePlaceholders replaces ${a.b} in every string value with the value
// at a.b. A string that is exactly one placeholder takes the referenced
// value with its type. References may chain; cycles are errors.
func resolvePlaceholders(tree map[string]any) error {
	return resolvePlaceholdersWith(tree, nil)
}

// resolvePlaceholdersWith is resolvePlaceholders with a fallback for
// references the tree does not hold (nil: none): it returns the
// reference's value, or false.
func resolvePlaceholdersWith(tree map[string]any, fallback func(ref string) (any, bool)) error {
	r := resolver{root: tree, active: map[string]bool{}, fallback: fallback}
	return r.walk(tree, "")
}

type resolver struct {
	root     map[string]any
	active   map[string]bool
	fallback func(ref string) (any, bool)
}

func (r *resolver) walk(node map[string]any, prefix string) error {
	for k, v := range node {
		path := prefix + k
		switch t := v.(type) {
		case map[string]any:
			if err := r.walk(t, path+"."); err != nil {
				return err
			}
		case []any:
			for i, x := range t {
				if s, ok := x.(string); ok {
					res, err := r.resolve(s, fmt.Sprintf("%s[%d]", path, i))
					if err != nil {
						return err
					}
					t[i] = res
				}
			}
		case string:
			res, err := r.resolve(t, path)
			if err != nil {
				return err
			}
			node[k] = res
		}
	}
	return nil
}

// lookupPath returns the value at dotted path ref of tree.
func lookupPath(tree map[string]any, ref string) (any, bool) {
	var cur any = tree
	for _, p := range strings.Split(ref, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func (r *resolver) lookup(ref, from string) (any, error) {
	if r.active[ref] {
		return nil, fmt.Errorf("%w: placeholder cycle through ${%s} (in %s)", ErrInvalid, ref, from)
	}
	cur, ok := lookupPath(r.root, ref)
	if !ok && r.fallback != nil {
		cur, ok = r.fallback(ref)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s refers to unknown key ${%s}", ErrInvalid, from, ref)
	}
	if s, ok := cur.(string); ok {
		r.active[ref] = true
		defer delete(r.active, ref)
		return r.resolve(s, ref)
	}
	if _, ok := cur.(map[string]any); ok {
		return nil, fmt.Errorf("%w: %s refers to ${%s}, which is a mapping", ErrInvalid, from, ref)
	}
	return cur, nil
}

func (r *resolver) resolve(s, from string) (any, error) {
	locs := placeholder.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return s, nil
	}
	if len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(s) {
		return r.lookup(s[locs[0][2]:locs[0][3]], from)
	}
	var b bytes.Buffer
	last := 0
	for _, loc := range locs {
		b.WriteString(s[last:loc[0]])
		v, err := r.lookup(s[loc[2]:loc[3]], from)
		if err != nil {
			return nil, err
		}
		if v != nil {
			fmt.Fprint(&b, v)
		}
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String(), nil
}
