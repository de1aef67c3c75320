package dotenv

import (
	"regexp"
	"strings"
)

// Var is one variable a .env file sets.
type Var struct {
	Key, Value string
}

// variable is python-dotenv's POSIX variable pattern: ${NAME} or
// ${NAME:-default}.
var variable = regexp.MustCompile(`\$\{([^}:]*)(?::-([^}]*))?\}`)

// Resolve interpolates ${NAME} and ${NAME:-default} in the bindings'
// values and returns one Var per key, in the order keys first appear, with
// the value of the key's last binding. A reference is looked up with
// lookup (the environment) and among the values resolved so far: the
// environment first, unless override, which puts the file's values first.
// A name found nowhere takes its default, or "". Keys without a value are
// left out. lookup may be nil.
func Resolve(bindings []Binding, lookup func(string) (string, bool), override bool) []Var {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	type entry struct {
		value    string
		hasValue bool
	}
	values := map[string]entry{}
	var order []string
	get := func(name string) (string, bool) {
		e, inFile := values[name]
		if override && inFile {
			return e.value, true // a key without value resolves to ""
		}
		if v, ok := lookup(name); ok {
			return v, true
		}
		return e.value, inFile
	}
	for _, b := range bindings {
		e := entry{hasValue: b.HasValue}
		if b.HasValue {
			e.value = variable.ReplaceAllStringFunc(b.Value, func(ref string) string {
				m := variable.FindStringSubmatchIndex(ref)
				name := ref[m[2]:m[3]]
				if v, ok := get(name); ok {
					return v
				}
				if m[4] >= 0 {
					return ref[m[4]:m[5]]
				}
				return ""
			})
		}
		if _, seen := values[b.Key]; !seen {
			order = append(order, b.Key)
		}
		values[b.Key] = e
	}
	out := make([]Var, 0, len(order))
	for _, k := range order {
		if e := values[k]; e.hasValue {
			out = append(out, Var{Key: k, Value: e.value})
		}
	}
	return out
}

// settable reports whether an operating system environment can hold the
// variable: a non-empty key without "=" or NUL, a value without NUL.
func settable(v Var) bool {
	return v.Key != "" && !strings.ContainsAny(v.Key, "=\x00") && !strings.ContainsRune(v.Value, 0)
}
