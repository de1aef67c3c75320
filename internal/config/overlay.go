package config

import (
	"fmt"

	"github.com/goccy/go-yaml"
)

// Overlay returns the YAML text of one configuration layer: the mapping doc
// (nil for none) with the "a.b=value" overrides applied over it in order,
// each read exactly as [Apply] reads an override. Handed to [LoadFiles] as a
// file, the result has the effect of doc followed by the overrides at that
// point of the layering, not after every file, which is what a caller
// composing several layers (each with its own mapping and overrides) needs.
// Keys are not checked here; [Apply] checks them when the layer is used. doc
// is not modified.
func Overlay(doc map[string]any, overrides []string) ([]byte, error) {
	tree := map[string]any{}
	if len(doc) > 0 {
		// A round trip through YAML deep-copies doc and normalises its
		// nested mappings to map[string]any.
		data, err := yaml.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("%w: encode overlay: %v", ErrInvalid, err)
		}
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("%w: decode overlay: %v", ErrInvalid, err)
		}
		m, ok := normalize(v).(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: overlay is not a mapping", ErrInvalid)
		}
		tree = m
	}
	for _, o := range overrides {
		if err := setOverride(tree, o); err != nil {
			return nil, err
		}
	}
	if len(tree) == 0 {
		return []byte("{}\n"), nil
	}
	data, err := yaml.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("config: encode overlay: %w", err)
	}
	return data, nil
}
