package config_test

import (
	"fmt"

	"github.com/org/agentevolver/internal/config"
)

// Defaults live in the struct; a YAML layer and an override are merged over
// them and placeholders resolved.
func ExampleApply() {
	type run struct {
		Name string `yaml:"name"`
		Dir  string `yaml:"dir"`
		Size int    `yaml:"size"`
	}
	cfg := struct {
		Run run `yaml:"run"`
	}{Run: run{Name: "demo", Dir: "runs/${run.name}", Size: 1}}
	err := config.Apply(&cfg, []config.Layer{{Name: "a.yaml", YAML: []byte("run:\n  name: exp\n")}}, []string{"run.size=3"})
	fmt.Println(cfg.Run, err)
	err = config.Apply(&cfg, nil, []string{"run.sise=3"})
	fmt.Println(err)
	// Output:
	// {exp runs/exp 3} <nil>
	// config: invalid configuration: unknown key "run.sise" (known keys here: dir, name, size)
}
