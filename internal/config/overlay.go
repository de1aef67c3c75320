package config

import "fmt"

// Overlay returns the YAML text of one configuration layer: the mapping doc
// (nil for none) with the "a.b=value" overrides applied over it in order,
// each read exactly as [Apply] reads an override. Handed to [LoadFiles] as a
// file, the result has the effect of doc followed by the overrides at that
// point of the layering, not after every file, which is what a caller
// composing several layers (each with its own mapping and overrides) needs.
// Keys are not checked here; [Apply] checks them when the layer is used. doc
// is not modified. A value shared by several keys of doc is written out once
// per key, so a doc decoded from YAML should come from text that passed
// [CheckYAML].
func Overlay(doc map[string]any, overrides []string) ([]byte, error) {
	tree := map[string]any{}
	if len(doc) > 0 {
		// A round trip through YAML deep-copies doc and normalises its
		// nested mappings to map[string]any.
		data, err := encode(doc)
		if err != nil {
			return nil, fmt.Errorf("%w: encode overlay: %v", ErrInvalid, err)
		}
		v, err := decodeAny(data)
		if err != nil {
			return nil, fmt.Errorf("%w: decode overlay: %w", ErrInvalid, err)
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
	data, err := encode(tree)
	if err != nil {
		return nil, fmt.Errorf("config: encode overlay: %w", err)
	}
	return data, nil
}
