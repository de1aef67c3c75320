package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Options are the optional behaviours of [ApplyWith] and [LoadFilesWith].
// The zero value is [Apply]'s behaviour.
type Options struct {
	// Aliases maps the dotted keys of another schema (the configuration
	// of another program for the same job) to dotted keys of the struct
	// being loaded, so that files written for that program load. An empty
	// target marks a key that has no counterpart: it is dropped with a
	// warning instead of being an unknown-key error. An alias of a
	// mapping ("a.b" to "c") moves every key under it, and each of those
	// may have an alias of its own, looked up by its original full path
	// ("a.b.x"), which takes precedence over the key's name at the new
	// place. A key that the struct knows at its own place is never
	// aliased, so an alias can never shadow one of the struct's keys;
	// keys neither known nor aliased remain unknown-key errors. Aliases
	// apply to every layer and to every override's key (a flow mapping
	// given as an override's value is placed as it is). A layer that sets
	// one key both directly and through an alias is an error. A key
	// ending in ".*" with an empty target ("a.b.*") ignores, with a
	// warning, every key under that mapping that is neither aliased nor
	// has an alias below it; it never applies inside a mapping of the
	// struct's own, so misspelt keys of the struct stay errors.
	Aliases map[string]string
}

// rewriter maps one layer's keys through Options.Aliases into a fresh tree
// and records where every key of that tree came from.
type rewriter struct {
	root    reflect.Type
	aliases map[string]string
	layer   string
	lines   map[string]int // original dotted path → line in the layer
	out     map[string]any
	set     map[string]string // destination path → original path that set it
	ignored []string
	origins map[string]string // destination path → where it was set
}

// rewriteLayer returns the tree of one layer with its aliased keys moved to
// their targets and its ignored keys dropped (listed in ignored), and
// records in origins (destination path → "file:line") where each key was
// set.
func rewriteLayer(root reflect.Type, aliases map[string]string, l Layer, doc map[string]any, origins map[string]string) (map[string]any, []string, error) {
	r := &rewriter{
		root: root, aliases: aliases, layer: l.Name, lines: keyLines(l.YAML),
		out: map[string]any{}, set: map[string]string{}, origins: origins,
	}
	if err := r.walk(doc, "", "", root); err != nil {
		return nil, nil, err
	}
	return r.out, r.ignored, nil
}

func (r *rewriter) walk(node map[string]any, orig, dest string, dt reflect.Type) error {
	keys := make([]string, 0, len(node))
	for k := range node {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := node[k]
		o := joinKey(orig, k)
		d, ft, ignored := aliasTarget(r.root, r.aliases, orig, dest, dt, k)
		if ignored {
			r.ignored = append(r.ignored, o)
			continue
		}
		r.origins[d] = r.where(o, d)
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 && (ft == nil || structType(ft) != nil) {
			// The mapping itself is made by put when a key lands in it,
			// so that one whose keys all move elsewhere leaves nothing.
			if err := r.walk(sub, o, d, ft); err != nil {
				return err
			}
			continue
		}
		if sub, ok := v.(map[string]any); ok {
			r.nestedOrigins(sub, o, d) // a map field's entries
		}
		if err := r.put(d, o, v); err != nil {
			return err
		}
	}
	return nil
}

// nestedOrigins records where each key below a mapping that is placed
// whole (the value of a map field) was set.
func (r *rewriter) nestedOrigins(node map[string]any, o, d string) {
	for k, v := range node {
		ko, kd := joinKey(o, k), joinKey(d, k)
		r.origins[kd] = r.where(ko, kd)
		if sub, ok := v.(map[string]any); ok {
			r.nestedOrigins(sub, ko, kd)
		}
	}
}

// where describes the place of original key o, written as destination d.
func (r *rewriter) where(o, d string) string {
	at := r.layer
	if line, ok := r.lines[o]; ok {
		at = fmt.Sprintf("%s:%d", r.layer, line)
	}
	if o != d {
		at += fmt.Sprintf(", as %s", o)
	}
	return at
}

// mapping makes sure d is a mapping of the output tree.
func (r *rewriter) mapping(d, o string) error {
	node := r.out
	parts := strings.Split(d, ".")
	for i, p := range parts {
		switch next := node[p].(type) {
		case map[string]any:
			node = next
		case nil:
			m := map[string]any{}
			node[p] = m
			node = m
		default:
			at := strings.Join(parts[:i+1], ".")
			return fmt.Errorf("%w: %s: %s and %s both set %s", ErrInvalid, r.layer, r.set[at], o, at)
		}
	}
	return nil
}

// put sets d to v in the output tree; o is the key of the layer that set
// it.
func (r *rewriter) put(d, o string, v any) error {
	parts := strings.Split(d, ".")
	parent := strings.Join(parts[:len(parts)-1], ".")
	node := r.out
	if parent != "" {
		if err := r.mapping(parent, o); err != nil {
			return err
		}
		for _, p := range parts[:len(parts)-1] {
			node = node[p].(map[string]any)
		}
	}
	last := parts[len(parts)-1]
	if _, exists := node[last]; exists {
		prev := r.set[d]
		if prev == "" {
			prev = "a mapping under " + d
		}
		return fmt.Errorf("%w: %s: %s and %s both set %s", ErrInvalid, r.layer, prev, o, d)
	}
	node[last] = v
	r.set[d] = o
	return nil
}

// aliasTarget returns where key k of the mapping at original path orig,
// placed at destination path dest (of struct type dt, nil when unknown),
// goes: its destination path and type (nil when unknown), or ignored.
func aliasTarget(root reflect.Type, aliases map[string]string, orig, dest string, dt reflect.Type, k string) (string, reflect.Type, bool) {
	o := joinKey(orig, k)
	natural := joinKey(dest, k)
	ft, native := fieldOf(dt, k)
	if native && orig == dest {
		return natural, ft, false
	}
	if t, ok := aliases[o]; ok {
		if t == "" {
			return "", nil, true
		}
		return t, typeAt(root, t), false
	}
	if native {
		return natural, ft, false
	}
	// A catch-all of a mapping of theirs ("a.b.*") ignores what is left,
	// unless an alias names a key below (the walk goes on to find it).
	// It never applies inside a mapping of ours, where an unknown key is
	// a misspelling to report.
	if t, ok := aliases[joinKey(orig, "*")]; ok && t == "" && (dt == nil || orig != dest) && !aliasBelow(aliases, o) {
		return "", nil, true
	}
	return natural, nil, false
}

// aliasBelow reports whether an alias names a key below the mapping at
// original path o.
func aliasBelow(aliases map[string]string, o string) bool {
	prefix := o + "."
	for from := range aliases {
		if strings.HasPrefix(from, prefix) {
			return true
		}
	}
	return false
}

// aliasPath maps an override's dotted key through the aliases: the
// destination key, or ignored.
func aliasPath(root reflect.Type, aliases map[string]string, key string) (string, bool) {
	if len(aliases) == 0 {
		return key, false
	}
	orig, dest, dt := "", "", root
	for _, k := range strings.Split(key, ".") {
		d, ft, ignored := aliasTarget(root, aliases, orig, dest, dt, k)
		if ignored {
			return "", true
		}
		orig, dest, dt = joinKey(orig, k), d, structType(ft)
	}
	return dest, false
}

// fieldOf returns the type of the field of struct type t whose YAML key is
// k.
func fieldOf(t reflect.Type, k string) (reflect.Type, bool) {
	t = structType(t)
	if t == nil {
		return nil, false
	}
	ft, ok := yamlFields(t)[k]
	return ft, ok
}

// typeAt returns the type of the field at dotted path in struct type root,
// nil when there is none.
func typeAt(root reflect.Type, path string) reflect.Type {
	t := root
	for _, k := range strings.Split(path, ".") {
		ft, ok := fieldOf(t, k)
		if !ok {
			return nil
		}
		t = ft
	}
	return t
}

// structType returns t with pointers removed when it is a struct, else
// nil.
func structType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

func joinKey(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
