package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// lolBomb is a "billion laughs" YAML text: levels anchors, each a list of
// fanout aliases of the one before, so the last expands to fanout^levels
// strings.
func lolBomb(levels, fanout int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [" + strings.TrimSuffix(strings.Repeat(`"lol",`, fanout), ",") + "]\n")
	for i := 1; i < levels; i++ {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), fanout), ",")
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, refs)
	}
	return b.String()
}

// mergeBomb nests merge keys: each anchor merges the one before and holds
// three more mappings that merge it, so a decoder that copies merged
// mappings does 4^levels work.
func mergeBomb(levels int) string {
	var b strings.Builder
	b.WriteString("m0: &m0 {x: 1}\n")
	for i := 1; i < levels; i++ {
		p := fmt.Sprintf("*m%d", i-1)
		fmt.Fprintf(&b, "m%d: &m%d {<<: %s, y1: {<<: %s}, y2: {<<: %s}, y3: {<<: %s}}\n", i, i, p, p, p, p)
	}
	return b.String()
}

func TestAliasBomb(t *testing.T) {
	// Without the bound, the first (482 bytes, 10^9 strings) cost the
	// package half a minute of walking, and the second (about 700 bytes)
	// took the decoder itself minutes.
	tests := []struct{ name, yaml string }{
		{"billion laughs", lolBomb(9, 10)},
		{"merge keys", mergeBomb(12)},
		{"long string repeated", "s: &s " + strings.Repeat("x", 5000) + "\nl: [" + strings.TrimSuffix(strings.Repeat("*s,", 100), ",") + "]\n"},
		{"under a known key", "extra:\n" + indent(lolBomb(9, 10))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := defaults()
			err := Apply(&cfg, []Layer{{Name: "bomb.yaml", YAML: []byte(tt.yaml)}}, nil)
			if !errors.Is(err, ErrAliasExpansion) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Apply(%d bytes) = %v, want ErrAliasExpansion and ErrInvalid", len(tt.yaml), err)
			}
			if !strings.Contains(err.Error(), "bomb.yaml") || !strings.Contains(err.Error(), "alias") {
				t.Errorf("error %q names neither the file nor the problem", err)
			}
			if err := CheckYAML([]byte(tt.yaml)); !errors.Is(err, ErrAliasExpansion) || !errors.Is(err, ErrInvalid) {
				t.Errorf("CheckYAML = %v", err)
			}
		})
	}
	// The same through a file and through an override.
	path := filepath.Join(t.TempDir(), "bomb.yaml")
	if err := os.WriteFile(path, []byte(lolBomb(9, 10)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := defaults()
	if err := LoadFiles(&cfg, []string{path}, nil); !errors.Is(err, ErrAliasExpansion) {
		t.Errorf("LoadFiles = %v, want ErrAliasExpansion", err)
	}
	flow := "[&a [lol, lol, lol, lol, lol, lol, lol, lol], &b [*a, *a, *a, *a, *a, *a, *a, *a], &c [*b, *b, *b, *b, *b, *b, *b, *b], " +
		"&d [*c, *c, *c, *c, *c, *c, *c, *c], &e [*d, *d, *d, *d, *d, *d, *d, *d], &f [*e, *e, *e, *e, *e, *e, *e, *e]]"
	if err := Apply(&cfg, nil, []string{"trainer.tags=" + flow}); !errors.Is(err, ErrAliasExpansion) || !strings.Contains(err.Error(), "override") {
		t.Errorf("Apply with a bomb override = %v, want ErrAliasExpansion naming the override", err)
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

type aliasConfig struct {
	A    map[string]string `yaml:"a"`
	B    map[string]string `yaml:"b"`
	Tags []string          `yaml:"tags"`
	Also []string          `yaml:"also"`
	Name string            `yaml:"name"`
	Copy string            `yaml:"copy"`
}

func TestOrdinaryAliases(t *testing.T) {
	// Anchors, aliases and merge keys of ordinary size keep working.
	doc := `
a: &defaults {x: "1", y: "2"}
b:
  <<: *defaults
  y: "3"
tags: &t [p, q]
also: *t
name: &n run
copy: *n
`
	var cfg aliasConfig
	if err := Apply(&cfg, []Layer{{Name: "a.yaml", YAML: []byte(doc)}}, []string{"also=[&z r, *z]"}); err != nil {
		t.Fatal(err)
	}
	want := aliasConfig{
		A: map[string]string{"x": "1", "y": "2"}, B: map[string]string{"x": "1", "y": "3"},
		Tags: []string{"p", "q"}, Also: []string{"r", "r"}, Name: "run", Copy: "run",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got %+v\nwant %+v", cfg, want)
	}
	// A 200-byte string shared a hundred times is within the budget.
	shared := "name: &n " + strings.Repeat("z", 200) + "\ntags: [" + strings.TrimSuffix(strings.Repeat("*n,", 100), ",") + "]\n"
	if err := CheckYAML([]byte(shared)); err != nil {
		t.Errorf("a string shared 100 times: %v", err)
	}
}

func TestLimits(t *testing.T) {
	keys := func(n int) []byte {
		var b strings.Builder
		b.WriteString("extra:\n")
		for i := 0; i < n-1; i++ {
			fmt.Fprintf(&b, "  k%d: v\n", i)
		}
		return []byte(b.String())
	}
	if err := CheckYAML(keys(MaxKeys)); err != nil {
		t.Errorf("%d keys: %v", MaxKeys, err)
	}
	// A 4 MiB file of short keys cost the parser minutes.
	big := keys(MaxFileSize / 10)
	cfg := defaults()
	err := Apply(&cfg, []Layer{{Name: "big.yaml", YAML: big}}, nil)
	if !errors.Is(err, ErrTooComplex) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "mapping keys") {
		t.Errorf("Apply(%d keys) = %v, want ErrTooComplex", MaxFileSize/10, err)
	}
	// Keys of one mapping spread over several layers.
	half := keys(MaxKeys/2 + 10)
	other := []byte(strings.ReplaceAll(string(half), "  k", "  j"))
	err = Apply(&cfg, []Layer{{Name: "a.yaml", YAML: half}, {Name: "b.yaml", YAML: other}, {Name: "c.yaml", YAML: []byte(strings.ReplaceAll(string(half), "  k", "  i"))}}, nil)
	if !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), `mapping "extra"`) {
		t.Errorf("Apply(3 layers of %d keys of one mapping) = %v, want ErrTooComplex", MaxKeys/2+10, err)
	}
	deep := []byte("extra: " + strings.Repeat("[", MaxFlowDepth+1) + strings.Repeat("]", MaxFlowDepth+1) + "\n")
	if err := CheckYAML(deep); !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), "nested") {
		t.Errorf("flow nesting %d: %v, want ErrTooComplex", MaxFlowDepth+1, err)
	}
	if err := CheckYAML([]byte(strings.Repeat("[", MaxFlowDepth) + strings.Repeat("]", MaxFlowDepth))); err != nil {
		t.Errorf("flow nesting %d: %v", MaxFlowDepth, err)
	}
	// Without aliases, the expansion budget never rejects a file: a long
	// flow list of one-letter items is within it.
	flow := "tags: [" + strings.TrimSuffix(strings.Repeat("a,", 1<<17), ",") + "]\n"
	if err := CheckYAML([]byte(flow)); err != nil {
		t.Errorf("a flow list of 2^17 one-letter items: %v", err)
	}
}

func TestDecoderPanicIsAnError(t *testing.T) {
	// goccy/go-yaml#735 panics on a tag where a list is expected; whatever
	// the decoder does with these, Apply returns rather than panicking.
	for _, doc := range []string{"trainer:\n  tags: !x\n", "set: !x\n", "trainer: !x\n", "extra: !!binary x\n"} {
		cfg := defaults()
		_ = Apply(&cfg, []Layer{{Name: "f.yaml", YAML: []byte(doc)}}, []string{"trainer.tags=!x"})
	}
}
