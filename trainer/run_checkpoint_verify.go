package trainer

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/org/agentevolver/trainer/checkpoint"
)

// checkpointConfig is the file of a checkpoint holding the run's resolved
// configuration (without secrets), compared with the resuming one.
const checkpointConfig = "config.yaml"

// maxConfigBytes bounds checkpointConfig, checked before reading it.
const maxConfigBytes = 1 << 22

// configForCheckpoint is cfg as a checkpoint records it: without secrets.
func configForCheckpoint(cfg Config) ([]byte, error) {
	cfg.Env.Token = ""
	return cfg.YAML()
}

// Configuration keys whose change makes a checkpoint unusable (the
// weights would not fit) or the resumed run no continuation of the saved
// one (other tasks, another schedule): Resume refuses them. Keys in
// configIgnored may differ freely; every other difference is logged.
var (
	configFatal = []string{
		"model.", "trainer.seed", "data.train_batch_size", "data.shuffle", "data.train_split",
		"data.max_difficulty", "env.type", "env.toolworld.", "rollout.n", "actor.lora.",
	}
	configIgnored = []string{
		"trainer.output_dir", "trainer.experiment_name", "trainer.rl_steps", "trainer.progress",
		"trainer.backend", "env.url", "env.companion", "env.companion_addr", "env.token", "env.ca_file",
		"rollout.remote.",
	}
)

// compareConfigs returns the differences between the configuration a
// checkpoint was saved with and the one resuming it, as "key: old -> new",
// split into those Resume must refuse and the rest.
func compareConfigs(saved, current []byte) (fatal, other []string, err error) {
	a, err := flattenYAML(saved)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", checkpoint.ErrCorrupt, checkpointConfig, err)
	}
	b, err := flattenYAML(current)
	if err != nil {
		return nil, nil, err
	}
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if a[k] == b[k] || hasAnyPrefix(k, configIgnored) {
			continue
		}
		d := fmt.Sprintf("%s: %s -> %s", k, orUnset(a[k]), orUnset(b[k]))
		if hasAnyPrefix(k, configFatal) {
			fatal = append(fatal, d)
		} else {
			other = append(other, d)
		}
	}
	return fatal, other, nil
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

func hasAnyPrefix(key string, prefixes []string) bool {
	for _, p := range prefixes {
		if key == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(key, p)) {
			return true
		}
	}
	return false
}

// flattenYAML maps every leaf of a YAML document to its dotted key
// ("rollout.linear_think.think_preference"), lists and values rendered as
// JSON so that equal values compare equal.
func flattenYAML(doc []byte) (map[string]string, error) {
	var tree map[string]any
	if err := yaml.Unmarshal(doc, &tree); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for k, child := range m {
				walk(prefix+k+".", child)
			}
			return
		}
		key := strings.TrimSuffix(prefix, ".")
		if v == nil {
			out[key] = ""
			return
		}
		data, err := json.Marshal(v)
		if err != nil {
			data = []byte(fmt.Sprint(v))
		}
		out[key] = string(data)
	}
	walk("", tree)
	return out, nil
}
