package model

import (
	"errors"
	"strings"
	"testing"
)

func TestNewBackend(t *testing.T) {
	t.Setenv(BackendEnvVar, "")
	b, err := NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() == "" {
		t.Error("backend has no name")
	}
	tests := []struct {
		name, config, env, mentions string
	}{
		{"not compiled in", "nonsense", "", "not compiled in"},
		{"bad option", "go:no_such_option", "", "no_such_option"},
		{"from the environment", "", "nonsense:cpu", "nonsense"},
	}
	if !backendCompiledIn("xla") {
		tests = append(tests, struct{ name, config, env, mentions string }{"xla without the build tag", "xla:cuda", "", "-tags xla"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(BackendEnvVar, tc.env)
			_, err := NewBackend(tc.config)
			if !errors.Is(err, ErrBackendUnavailable) || !strings.Contains(err.Error(), tc.mentions) {
				t.Fatalf("err = %v, want ErrBackendUnavailable mentioning %q", err, tc.mentions)
			}
		})
	}
}
