package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchRollout runs a few short episodes with --baseline and checks
// the JSON line: its keys, that both modes ran the same episodes to the
// same tokens, and that prefix reuse prefilled fewer tokens.
func TestBenchRollout(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"bench", "rollout", "--tasks", "2", "--n", "2", "--max-steps", "2", "--max-tokens", "8", "--baseline"}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var keys map[string]any
	if err := json.Unmarshal(out.Bytes(), &keys); err != nil {
		t.Fatalf("printed %q: %v", out.String(), err)
	}
	for _, k := range []string{"episodes_per_s", "generated_tokens_per_s", "prefill_tokens_per_generated_token",
		"prefill_share", "decode_share", "env_share", "baseline", "speedup_episodes_per_s"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no key %q in %s", k, out.String())
		}
	}
	var res rolloutResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	base := res.Baseline
	if base == nil || res.Episodes != 4 || base.Episodes != 4 || res.Failed != 0 || !(res.EpisodesPerS > 0) || !(res.GeneratedTokensPerS > 0) {
		t.Fatalf("result %+v, baseline %+v", res, base)
	}
	// The same seeded episodes sample the same tokens in both modes.
	if res.GeneratedTokens != base.GeneratedTokens {
		t.Errorf("generated %d tokens, baseline %d", res.GeneratedTokens, base.GeneratedTokens)
	}
	if res.ReusedPrefillTokens == 0 || res.PrefillTokens >= base.PrefillTokens {
		t.Errorf("prefilled %d (reused %d), baseline %d", res.PrefillTokens, res.ReusedPrefillTokens, base.PrefillTokens)
	}

	// Without the warm-up pass the measured episodes sample the same
	// tokens; their compilations are counted in. (Prefilled tokens depend
	// on how siblings' requests interleave: a prompt in the same prefill
	// as its twin costs nothing, one arriving later its last token.)
	out.Reset()
	if code := run(context.Background(), append(args[:len(args)-1], "--cold"), nil, &out, &errOut); code != 0 {
		t.Fatalf("--cold: exit %d: %s", code, errOut.String())
	}
	var cold rolloutResult
	if err := json.Unmarshal(out.Bytes(), &cold); err != nil {
		t.Fatal(err)
	}
	// Which shapes a pass compiles depends on how requests happen to join
	// the running batch, which depends on scheduling: the warm pass may
	// meet shapes its warm-up did not, more of them than a cold pass
	// meets on a busy machine (warm 6, cold 5 under -race beside a
	// training run). The cold pass must count its own compilations.
	if cold.GeneratedTokens != res.GeneratedTokens || cold.Compiles == 0 {
		t.Errorf("--cold generated %d tokens with %d compilations; warm %d, %d",
			cold.GeneratedTokens, cold.Compiles, res.GeneratedTokens, res.Compiles)
	}
}

// TestBenchRolloutOpProfile checks --op-profile on rollouts: a table of
// each measured run's ops on stderr, the warm-up's left out, and a clear
// error for a negative count.
func TestBenchRolloutOpProfile(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"bench", "rollout", "--tasks", "1", "--n", "2", "--max-steps", "1", "--max-tokens", "4", "--baseline",
		"--op-profile", "2", "--backend", "gofast:ops_sequential"}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	table := errOut.String()
	for _, want := range []string{"ops of the baseline run:\n", "ops of the continuous+prefix run:\n", "DotGeneral", "\ntotal "} {
		if !strings.Contains(table, want) {
			t.Errorf("stderr has no %q:\n%s", want, table)
		}
	}
	if rows := strings.Count(table, "%"); rows != 4 {
		t.Errorf("%d rows, want 2 a run:\n%s", rows, table)
	}
	var res rolloutResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Baseline == nil {
		t.Errorf("JSON line %q: %v", out.String(), err)
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"bench", "rollout", "--op-profile", "-1"}, nil, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "--op-profile") {
		t.Errorf("--op-profile -1: exit %d, %q", code, errOut.String())
	}
}
