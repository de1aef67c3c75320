// Package config loads layered YAML configuration into typed structs: the
// struct's own values are the defaults, then YAML files are merged over them
// in order, then "a.b.c=value" overrides, then "${a.b}" placeholders are
// resolved once against the merged result. Unknown keys are errors that name
// the key.
package config
