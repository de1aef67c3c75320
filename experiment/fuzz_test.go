package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// FuzzParse feeds arbitrary text to the experiment-file parser: it must
// reject it with ErrInvalid or return a file that keeps every promise of
// Parse (a safe name whose directory stays inside the output root, seeds
// and arms present and unique, budgets not negative, overrides of the form
// key=value), and that file must survive a round trip through YAML. It must
// never panic, and the corpus's alias bomb must be rejected at once.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodFile))
	f.Add([]byte(twoArms))
	f.Add([]byte("name: m\nseeds: [5, 6]\narms: [{name: a}]\n"))
	f.Add([]byte("name: x\nseeds: [1, 1]\narms: [{name: a}]\n"))
	f.Add([]byte("name: x\nseeds: [1]\narms: [{name: a}, {name: A}]\n"))
	f.Add([]byte("name: x\nseeds: [1]\narms: [{name: a, config: &a {x: *a}}]\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte("name: x\nseeds: [-9223372036854775808]\nsteps: 99999999999999999999\narms: [{name: a}]\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "/exp")
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if checkName("name", file.Name) != nil || len(file.Seeds) == 0 || len(file.Arms) == 0 || file.Steps < 0 || file.Quick.Steps < 0 {
			t.Fatalf("Parse accepted %+v", file)
		}
		names := map[string]bool{}
		for _, a := range file.Arms {
			key := strings.ToLower(a.Name)
			if checkName("arm", a.Name) != nil || names[key] {
				t.Fatalf("Parse accepted arm %q in %+v", a.Name, file)
			}
			names[key] = true
			for _, s := range a.Set {
				if k, _, ok := strings.Cut(s, "="); !ok || strings.TrimSpace(k) == "" {
					t.Fatalf("Parse accepted override %q", s)
				}
			}
		}
		seeds := map[int64]bool{}
		for _, s := range file.Seeds {
			if seeds[s] {
				t.Fatalf("Parse accepted repeated seed %d", s)
			}
			seeds[s] = true
		}
		for _, name := range []string{file.Name, file.Name + QuickSuffix} {
			if _, err := inside("runs", name); err != nil {
				t.Fatalf("Parse accepted name %q, which leaves the output root: %v", file.Name, err)
			}
		}
		if got := file.runSeeds(true); len(got) == 0 {
			t.Fatalf("no quick seeds for %+v", file)
		}
		text, err := yaml.Marshal(file)
		if err != nil {
			return // an inline mapping YAML cannot write back; not Parse's concern
		}
		again, err := Parse(text, "/exp")
		if err != nil {
			t.Fatalf("a parsed file does not parse again: %v\n%s", err, text)
		}
		if again.Name != file.Name || len(again.Arms) != len(file.Arms) || len(again.Seeds) != len(file.Seeds) {
			t.Fatalf("round trip changed the file:\n%+v\n%+v", file, again)
		}
	})
}
