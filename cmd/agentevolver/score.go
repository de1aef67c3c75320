package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/org/agentevolver/model"
)

// maxScoreInput bounds what the score command reads from stdin: far more
// than any context window's ids as JSON.
const maxScoreInput = 8 << 20

func init() {
	register(command{
		name:    "score",
		summary: "print the log-prob of each token of a JSON id list on stdin (to check an export against another runtime)",
		run:     runScore,
	})
}

// scoreOutput is what the score command prints.
type scoreOutput struct {
	// LogProbs[i] is log p(ids[i+1] | ids[:i+1]) at temperature 1.
	LogProbs []float64 `json:"logprobs"`
}

func runScore(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: agentevolver score --checkpoint DIR [--backend NAME] < ids.json

Reads a JSON list of token ids on stdin, for example [151644, 872, 198],
and prints {"logprobs": [...]}: the log-probability (natural log,
temperature 1) of each token after the first given the ones before it,
computed by the policy in DIR (a run's final/, a checkpoint, or any
Hugging Face Qwen2 directory such as one written by "agentevolver export").
Compare it with another runtime's prompt log-probs, e.g. vLLM's
prompt_logprobs, to check an export.

Flags:`)
		fs.PrintDefaults()
	}
	checkpoint := fs.String("checkpoint", "", "policy directory (required)")
	backend := fs.String("backend", "", "GoMLX backend, e.g. xla:cuda; default $GOMLX_BACKEND or the pure-Go one")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *checkpoint == "" {
		fs.Usage()
		return errors.New("--checkpoint is required")
	}
	input, err := readInput(stdin, maxScoreInput)
	if err != nil {
		return err
	}
	ids, err := parseScoreIDs(input)
	if err != nil {
		return err
	}
	dir, err := resolvePolicyDir(*checkpoint)
	if err != nil {
		return err
	}
	b, err := model.NewBackend(*backend)
	if err != nil {
		return err
	}
	m, err := model.Load(ctx, dir, model.Options{Backend: b})
	if err != nil {
		return err
	}
	logps, err := scoreIDs(ctx, m, ids)
	if err != nil {
		return err
	}
	data, err := json.Marshal(scoreOutput{LogProbs: logps})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", data)
	return err
}

// parseScoreIDs decodes a JSON list of at least two non-negative token ids.
func parseScoreIDs(input []byte) ([]int, error) {
	dec := json.NewDecoder(bytes.NewReader(input))
	var ids []int
	if err := dec.Decode(&ids); err != nil {
		return nil, fmt.Errorf("stdin: want a JSON list of token ids: %w", err)
	}
	if dec.More() {
		return nil, errors.New("stdin: want one JSON list of token ids, found more after it")
	}
	if len(ids) < 2 {
		return nil, fmt.Errorf("stdin: %d token ids; scoring needs at least 2 (the first is only context)", len(ids))
	}
	for i, id := range ids {
		if id < 0 {
			return nil, fmt.Errorf("stdin: token %d is %d, not an id", i, id)
		}
	}
	return ids, nil
}

// scoreIDs returns log p(ids[i+1] | ids[:i+1]) for every i: the model's
// log-prob code with the first id as the prompt and the rest as the
// response. Ids outside the vocabulary and sequences longer than the
// model's positions are rejected by the model.
func scoreIDs(ctx context.Context, m *model.Model, ids []int) ([]float64, error) {
	res, err := m.LogProbs(ctx, model.Batch{Tokens: model.Tokens{InputIDs: [][]int{ids}, PromptLen: 1}})
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(res.LogProbs[0]))
	for i, v := range res.LogProbs[0] {
		if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
			return nil, fmt.Errorf("token %d: log-prob %v (the weights hold non-finite values?)", i+1, v)
		}
		// The float32's shortest decimal form, not the noise digits of
		// its float64 widening.
		out[i], _ = strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	}
	return out, nil
}
