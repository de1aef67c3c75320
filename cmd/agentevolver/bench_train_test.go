package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestBenchTrainPrintsOneJSONLine(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs a training step of the tiny model")
	}
	var out, errOut bytes.Buffer
	err := runBench(context.Background(), []string{"train", "--model", "tiny", "--steps", "1", "--warmup", "0"}, nil, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line, got %q", out.String())
	}
	var res benchResult
	if err := json.Unmarshal([]byte(lines[0]), &res); err != nil {
		t.Fatal(err)
	}
	if res.Model != "tiny" || res.What != "train" || !(res.TokensPerSec > 0) || res.Steps != 1 {
		t.Errorf("result %+v", res)
	}
}

func TestBenchErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--model", "tiny"},
		{"nosuch"},
		{"train", "--model", "huge"},
		{"train", "--steps", "0"},
	} {
		if err := runBench(context.Background(), args, nil, io.Discard, io.Discard); err == nil {
			t.Errorf("bench %v: no error", args)
		}
	}
}
