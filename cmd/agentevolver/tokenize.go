package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/tokenizer"
)

// maxTokenizeInput bounds what the tokenize command reads from stdin.
const maxTokenizeInput = 64 << 20

func init() {
	register(command{
		name:    "tokenize",
		summary: "print the token ids of stdin (text, or a JSON chat with --chat)",
		run:     runTokenize,
	})
}

func runTokenize(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: agentevolver tokenize --tokenizer DIR|byte [--chat [--generation-prompt] [--no-think] [--text]]

Reads text on stdin and prints its token ids as a JSON array. With --chat,
stdin holds a JSON list of messages (or {"messages": [...], "tools": [...]}),
rendered with the tokenizer's chat template first.

Flags:`)
		fs.PrintDefaults()
	}
	dir := fs.String("tokenizer", "", `Hugging Face tokenizer directory (tokenizer.json, tokenizer_config.json), or "byte" for the byte-level tokenizer`)
	chat := fs.Bool("chat", false, "stdin is a JSON chat to render with the chat template")
	genPrompt := fs.Bool("generation-prompt", false, "with --chat: append the assistant turn header")
	noThink := fs.Bool("no-think", false, "with --chat: render as enable_thinking=false (Qwen3)")
	text := fs.Bool("text", false, "with --chat: print the rendered text instead of the ids")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return errors.New("--tokenizer is required")
	}
	if !*chat && (*genPrompt || *noThink || *text) {
		return errors.New("--generation-prompt, --no-think and --text need --chat")
	}
	tok, err := openTokenizer(*dir)
	if err != nil {
		return err
	}
	input, err := readInput(stdin, maxTokenizeInput)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	source := string(input)
	if *chat {
		source, err = renderChat(tok, input, tokenizer.TemplateOptions{AddGenerationPrompt: *genPrompt, DisableThinking: *noThink})
		if err != nil {
			return err
		}
		if *text {
			_, err := io.WriteString(stdout, source)
			return err
		}
	}
	ids := tok.Encode(source)
	if ids == nil {
		ids = []int{}
	}
	out, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// readInput reads all of r, failing past limit bytes.
func readInput(r io.Reader, limit int64) ([]byte, error) {
	input, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if int64(len(input)) > limit {
		return nil, fmt.Errorf("stdin: %w (over %d bytes)", tokenizer.ErrTooLarge, limit)
	}
	return input, nil
}

func openTokenizer(dir string) (tokenizer.Tokenizer, error) {
	if dir == "byte" {
		return tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	}
	return tokenizer.Load(dir)
}

// renderChat decodes a chat (a list of messages, or an object with messages
// and tools) and renders it with the tokenizer's template.
func renderChat(tok tokenizer.Tokenizer, input []byte, opts tokenizer.TemplateOptions) (string, error) {
	provider, ok := tok.(tokenizer.TemplateProvider)
	if !ok {
		return "", errors.New("this tokenizer has no chat template")
	}
	tpl, err := provider.ChatTemplate()
	if err != nil {
		return "", err
	}
	var messages []agentevolver.Message
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var obj struct {
			Messages []agentevolver.Message `json:"messages"`
			Tools    []json.RawMessage      `json:"tools"`
		}
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return "", fmt.Errorf("stdin: want a JSON list of messages or {\"messages\": ...}: %w", err)
		}
		messages, opts.Tools = obj.Messages, obj.Tools
	} else if err := json.Unmarshal(trimmed, &messages); err != nil {
		return "", fmt.Errorf("stdin: want a JSON list of messages: %w", err)
	}
	return tpl.Apply(messages, opts)
}
