package optim_test

import (
	"context"
	"errors"
	"math"
	"testing"

	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

const (
	testVocab = 12
	testRows  = 8
	testCols  = 10
	testPL    = 4
)

// newTestUpdater returns an updater and reference over a fresh bigram
// policy with the given seed.
func newTestUpdater(t testing.TB, cfg optim.UpdaterConfig, seed uint64) (*optim.Updater, *optim.Reference, func(string) map[string][]float32) {
	t.Helper()
	u, ref, vars := newTestUpdaterOn(t, "", cfg, seed)
	return u, ref, func(scope string) map[string][]float32 { return variableValues(t, vars, scope) }
}

// newTestUpdaterOn is newTestUpdater on the backend backendConfig names
// (model.NewBackend), returning the policy's variables.
func newTestUpdaterOn(t testing.TB, backendConfig string, cfg optim.UpdaterConfig, seed uint64) (*optim.Updater, *optim.Reference, *mlctx.Context) {
	t.Helper()
	backend, err := model.NewBackend(backendConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(backend.Finalize)
	policy, vars := newBigram(testVocab, seed)
	u, err := optim.NewUpdater(backend, vars, policy, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := optim.NewReference(backend, vars, policy, optim.ReferenceConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return u, ref, vars
}

func TestUpdaterLowersLoss(t *testing.T) {
	u, ref, _ := newTestUpdater(t, optim.UpdaterConfig{Optimizer: optim.AdamWConfig{LearningRate: 0.02}}, 1)
	b := randomBatch(testRows, testCols, testPL, testVocab, 1)
	fillLogProbs(t, u, ref, b)
	var losses []float64
	for range 6 {
		ms, err := u.Update(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 {
			t.Fatalf("%d steps, want 1", len(ms))
		}
		m := ms[0]
		if m.Skipped || !(m.GradNorm > 0) || math.IsNaN(m.Entropy) || m.LR != 0.02 {
			t.Fatalf("bad metrics %+v", m)
		}
		losses = append(losses, m.PGLoss+0.001*m.KLLoss)
	}
	t.Logf("objective per step: %v", losses)
	if !(losses[len(losses)-1] < losses[0]-0.05) {
		t.Errorf("objective did not fall: %v", losses)
	}
	// The first step is on-policy: ratio 1, no clipping, no KL.
	if got := losses[0]; math.Abs(got-firstStepLoss(b)) > 1e-5 {
		t.Errorf("first pg_loss %v, want token-mean of −A = %v", got, firstStepLoss(b))
	}
}

// firstStepLoss is the token-mean of −A under the mask: the HET loss at
// ratio 1.
func firstStepLoss(b *optim.Batch) float64 {
	var sum, n float64
	for i, row := range b.LossMask {
		for j, m := range row {
			sum += float64(-b.Advantages[i][j] * m)
			n += float64(m)
		}
	}
	return sum / n
}

func TestGradientAccumulationEquivalence(t *testing.T) {
	modes := []objective.AggMode{objective.TokenMean, objective.SeqMeanTokenSum, objective.SeqMeanTokenMean, objective.SeqMeanTokenSumNorm}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			run := func(micro int) (optim.StepMetrics, map[string][]float32) {
				cfg := optim.UpdaterConfig{
					Optimizer:      optim.AdamWConfig{LearningRate: 0.01},
					Loss:           objective.PolicyLossConfig{AggMode: mode},
					MicroBatchSize: micro,
					EntropyCoef:    0.01,
				}
				u, ref, values := newTestUpdater(t, cfg, 7)
				b := randomBatch(testRows, testCols, testPL, testVocab, 3)
				fillLogProbs(t, u, ref, b)
				// Perturb the old log-probs so ratios differ from 1 and clipping bites.
				for i := range b.OldLogProbs {
					for j := range b.OldLogProbs[i] {
						b.OldLogProbs[i][j] += 0.3 * float32((i+j)%3-1)
					}
				}
				ms, err := u.Update(context.Background(), b)
				if err != nil {
					t.Fatal(err)
				}
				return ms[0], values("/")
			}
			whole, wholeVars := run(0) // one pass of 8 rows
			acc, accVars := run(2)     // 4 micro-batches of 2 rows, different token counts
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-5+1e-4*math.Abs(b) }
			for name, pair := range map[string][2]float64{
				"pg_loss": {acc.PGLoss, whole.PGLoss}, "clipfrac": {acc.PGClipFrac, whole.PGClipFrac},
				"clipfrac_lower": {acc.PGClipFracLower, whole.PGClipFracLower}, "ppo_kl": {acc.PPOKL, whole.PPOKL},
				"kl": {acc.KLLoss, whole.KLLoss}, "entropy": {acc.Entropy, whole.Entropy}, "grad_norm": {acc.GradNorm, whole.GradNorm},
			} {
				if !close(pair[0], pair[1]) {
					t.Errorf("%s: accumulated %v, whole batch %v", name, pair[0], pair[1])
				}
			}
			if whole.PGClipFrac == 0 {
				t.Errorf("clipping never bound; the test does not exercise it")
			}
			// First moments hold (1−β1)·gradient: the accumulated gradient
			// must equal the whole batch's.
			compared := 0
			for name, want := range wholeVars {
				got, ok := accVars[name]
				if !ok {
					t.Errorf("variable %s missing with accumulation", name)
					continue
				}
				for i := range want {
					if math.Abs(float64(got[i]-want[i])) > 1e-5+1e-3*math.Abs(float64(want[i])) {
						t.Errorf("%s[%d]: accumulated %v, whole batch %v", name, i, got[i], want[i])
						break
					}
				}
				compared++
			}
			if compared < 3 {
				t.Errorf("compared %d variables, want weights and both moments", compared)
			}
		})
	}
}

func TestGradientClipping(t *testing.T) {
	const beta1 = 0.9
	for _, tc := range []struct {
		name string
		clip optim.ClipConfig
	}{
		{"none", optim.ClipConfig{NoClip: true}},
		{"tight", optim.ClipConfig{MaxGradNorm: 1e-3}},
		{"default", optim.ClipConfig{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, ref, values := newTestUpdater(t, optim.UpdaterConfig{Clip: tc.clip}, 2)
			b := randomBatch(testRows, testCols, testPL, testVocab, 2)
			fillLogProbs(t, u, ref, b)
			ms, err := u.Update(context.Background(), b)
			if err != nil {
				t.Fatal(err)
			}
			norm := ms[0].GradNorm
			var sq float64
			for _, m := range values("/trainer/adamw/m") {
				for _, v := range m {
					sq += float64(v) * float64(v)
				}
			}
			applied := math.Sqrt(sq) / (1 - beta1)
			want := norm
			if !tc.clip.NoClip {
				maxNorm := tc.clip.MaxGradNorm
				if maxNorm == 0 {
					maxNorm = optim.DefaultMaxGradNorm
				}
				want = norm * math.Min(1, maxNorm/(norm+1e-6))
			}
			t.Logf("pre-clip norm %v, applied %v", norm, applied)
			if math.Abs(applied-want) > 1e-4*want {
				t.Errorf("applied gradient norm %v, want %v (pre-clip %v)", applied, want, norm)
			}
		})
	}
}

func TestNonFiniteGradientSkipsStep(t *testing.T) {
	u, ref, values := newTestUpdater(t, optim.UpdaterConfig{Optimizer: optim.AdamWConfig{LearningRate: 0.1}}, 3)
	b := randomBatch(testRows, testCols, testPL, testVocab, 3)
	fillLogProbs(t, u, ref, b)
	before := values(bigramScope)
	b.Advantages[0][0] = float32(math.Inf(1))
	ms, err := u.Update(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if !ms[0].Skipped {
		t.Fatalf("step not skipped: %+v", ms[0])
	}
	after := values(bigramScope)
	for name, w := range before {
		for i := range w {
			if after[name][i] != w[i] {
				t.Fatalf("%s[%d] changed from %v to %v in a skipped step", name, i, w[i], after[name][i])
			}
		}
	}
	for name, m := range values("/trainer/adamw") {
		for _, v := range m {
			if v != 0 {
				t.Fatalf("optimiser state %s changed in a skipped step", name)
			}
		}
	}
	// The next finite step proceeds.
	b.Advantages[0][0] = 1
	if ms, err = u.Update(context.Background(), b); err != nil || ms[0].Skipped {
		t.Fatalf("next step: %+v, %v", ms, err)
	}
}

func TestDecoupledWeightDecay(t *testing.T) {
	// With zero advantages and no KL or entropy terms the gradient is 0, so
	// AdamW only decays: w ← w·(1 − lr·wd).
	const lr, wd = 0.1, 0.5
	u, ref, values := newTestUpdater(t, optim.UpdaterConfig{
		Optimizer: optim.AdamWConfig{LearningRate: lr, WeightDecay: wd},
		NoKLLoss:  true, NoEntropyMetric: true,
	}, 4)
	b := randomBatch(testRows, testCols, testPL, testVocab, 4)
	fillLogProbs(t, u, nil, b)
	_ = ref
	for i := range b.Advantages {
		clear(b.Advantages[i])
	}
	before := values(bigramScope)
	ms, err := u.Update(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].GradNorm != 0 || !math.IsNaN(ms[0].Entropy) {
		t.Fatalf("metrics %+v, want zero gradient and no entropy", ms[0])
	}
	after := values(bigramScope)
	for name, w := range before {
		for i := range w {
			want := w[i] * float32(1-lr*wd)
			if math.Abs(float64(after[name][i]-want)) > 1e-6 {
				t.Fatalf("%s[%d] = %v, want %v", name, i, after[name][i], want)
			}
		}
	}
}

func TestReferenceIsFrozen(t *testing.T) {
	u, ref, _ := newTestUpdater(t, optim.UpdaterConfig{Optimizer: optim.AdamWConfig{LearningRate: 0.05}}, 5)
	b := randomBatch(testRows, testCols, testPL, testVocab, 5)
	fillLogProbs(t, u, ref, b)
	for i := range b.OldLogProbs {
		for j := range b.OldLogProbs[i] {
			if b.OldLogProbs[i][j] != b.RefLogProbs[i][j] {
				t.Fatalf("before training, reference %v != policy %v at %d,%d", b.RefLogProbs[i][j], b.OldLogProbs[i][j], i, j)
			}
		}
	}
	for range 3 {
		if _, err := u.Update(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	policyNow, err := u.LogProbs(context.Background(), &b.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	refNow, err := ref.LogProbs(context.Background(), &b.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for i := range refNow {
		for j := range refNow[i] {
			if refNow[i][j] != b.RefLogProbs[i][j] {
				t.Fatalf("reference changed at %d,%d: %v -> %v", i, j, b.RefLogProbs[i][j], refNow[i][j])
			}
			moved = moved || policyNow[i][j] != b.OldLogProbs[i][j]
		}
	}
	if !moved {
		t.Error("the policy did not change")
	}
}

func TestPPOEpochsOverMiniBatches(t *testing.T) {
	u, ref, _ := newTestUpdater(t, optim.UpdaterConfig{PPOEpochs: 2, MiniBatchSize: 5, MicroBatchSize: 2}, 6)
	b := randomBatch(testRows, testCols, testPL, testVocab, 6)
	fillLogProbs(t, u, ref, b)
	ms, err := u.Update(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} // 8 rows: mini-batches of 5 and 3
	if len(ms) != len(want) {
		t.Fatalf("%d steps, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		if m.Epoch != want[i][0] || m.MiniBatch != want[i][1] || m.Skipped {
			t.Errorf("step %d: %+v", i, m)
		}
	}
	if ms[0].PPOKL != 0 || ms[2].PPOKL == 0 {
		t.Errorf("ppo_kl should be 0 on the first, on-policy step and not after: %v, %v", ms[0].PPOKL, ms[2].PPOKL)
	}
	if got := ms[0].Map(); len(got) != 11 || got["actor/pg_loss"] != ms[0].PGLoss || got["actor/kl_coef"] != optim.DefaultKLCoef {
		t.Errorf("Map() = %v", got)
	}
}

func TestUpdaterErrors(t *testing.T) {
	backend := newBackend(t)
	policy, vars := newBigram(testVocab, 1)
	configs := []struct {
		name string
		cfg  optim.UpdaterConfig
		want error
	}{
		{"agg mode", optim.UpdaterConfig{Loss: objective.PolicyLossConfig{AggMode: "token-sum"}}, objective.ErrUnknownAggMode},
		{"kl type", optim.UpdaterConfig{KLType: "full"}, objective.ErrUnknownKLType},
		{"learning rate", optim.UpdaterConfig{Optimizer: optim.AdamWConfig{LearningRate: -1}}, optim.ErrConfig},
		{"dual clip", optim.UpdaterConfig{Loss: objective.PolicyLossConfig{DualClip: 0.5}}, optim.ErrConfig},
		{"clip low", optim.UpdaterConfig{Loss: objective.PolicyLossConfig{ClipLow: 1.5}}, optim.ErrConfig},
		{"betas", optim.UpdaterConfig{Optimizer: optim.AdamWConfig{Beta2: 1}}, optim.ErrConfig},
		{"grad norm", optim.UpdaterConfig{Clip: optim.ClipConfig{MaxGradNorm: -1}}, optim.ErrConfig},
		{"epochs", optim.UpdaterConfig{PPOEpochs: -1}, optim.ErrConfig},
	}
	for _, tc := range configs {
		if _, err := optim.NewUpdater(backend, vars, policy, tc.cfg); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := optim.NewUpdater(nil, vars, policy, optim.UpdaterConfig{}); !errors.Is(err, optim.ErrConfig) {
		t.Errorf("nil backend: err = %v", err)
	}

	u, err := optim.NewUpdater(backend, vars, policy, optim.UpdaterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := optim.NewReference(backend, vars, policy, optim.ReferenceConfig{})
	if err != nil {
		t.Fatal(err)
	}
	good := func() *optim.Batch {
		b := randomBatch(4, testCols, testPL, testVocab, 9)
		fillLogProbs(t, u, ref, b)
		return b
	}
	batches := []struct {
		name   string
		mutate func(b *optim.Batch)
	}{
		{"ragged ids", func(b *optim.Batch) { b.InputIDs[1] = b.InputIDs[1][:3] }},
		{"id out of vocabulary", func(b *optim.Batch) { b.InputIDs[0][5] = testVocab }},
		{"negative id", func(b *optim.Batch) { b.InputIDs[0][5] = -1 }},
		{"prompt too long", func(b *optim.Batch) { b.PromptLen = testCols }},
		{"no prompt", func(b *optim.Batch) { b.PromptLen = 0 }},
		{"attention mask rows", func(b *optim.Batch) { b.AttentionMask = [][]int{{1}} }},
		{"missing ref log-probs", func(b *optim.Batch) { b.RefLogProbs = nil }},
		{"old log-probs rows", func(b *optim.Batch) { b.OldLogProbs = b.OldLogProbs[:2] }}, // nil is on-policy: TestOnPolicyUpdateNeedsNoOldLogProbs
		{"advantages too wide", func(b *optim.Batch) { b.Advantages[2] = append(b.Advantages[2], 0) }},
		{"exp mask rows", func(b *optim.Batch) { b.ExpMask = b.LossMask[:2] }},
		{"empty", func(b *optim.Batch) { b.InputIDs = nil }},
	}
	for _, tc := range batches {
		b := good()
		tc.mutate(b)
		if _, err := u.Update(context.Background(), b); !errors.Is(err, optim.ErrShape) {
			t.Errorf("%s: err = %v, want ErrShape", tc.name, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := u.Update(ctx, good()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if err := u.SetLearningRate(0); !errors.Is(err, optim.ErrConfig) {
		t.Errorf("SetLearningRate(0): err = %v", err)
	}
}

func TestUpdaterWithExperienceMask(t *testing.T) {
	// Off-policy rows use the wider clip range: with ratios above 1.28 but
	// below 1.6 and positive advantages only on-policy tokens clip.
	u, ref, _ := newTestUpdater(t, optim.UpdaterConfig{NoKLLoss: true}, 8)
	b := randomBatch(2, testCols, testPL, testVocab, 8)
	fillLogProbs(t, u, ref, b)
	b.RefLogProbs = nil
	for i := range b.OldLogProbs {
		for j := range b.OldLogProbs[i] {
			b.OldLogProbs[i][j] -= 0.4 // ratio e^0.4 ≈ 1.49
			b.Advantages[i][j] = b.LossMask[i][j]
		}
	}
	on, err := u.Update(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	b.ExpMask = [][]float32{make([]float32, testCols-testPL), make([]float32, testCols-testPL)}
	for j := range b.ExpMask[1] {
		b.ExpMask[1][j] = 1
	}
	u2, _, _ := newTestUpdater(t, optim.UpdaterConfig{NoKLLoss: true}, 8)
	mixed, err := u2.Update(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if on[0].PGClipFrac != 1 {
		t.Errorf("all on-policy: clipfrac %v, want 1", on[0].PGClipFrac)
	}
	// The clip fraction counts on-policy clipping over all tokens (as the
	// reference's on_pg_clipfrac does), so it stays; the loss changes
	// because row 1 is no longer clipped.
	if !(mixed[0].PGLoss < on[0].PGLoss) {
		t.Errorf("off-policy rows should lower the loss (less clipping): on %v, mixed %v", on[0].PGLoss, mixed[0].PGLoss)
	}
	// Row 1's loss tokens are off-policy: their share and their loss are
	// reported (ratio ≈ 1.49 under the 1.6 bound, advantage 1: ≈ -1.49).
	var tokens, offTokens float64
	for i, row := range b.LossMask {
		for _, m := range row {
			tokens += float64(m)
			offTokens += float64(m) * float64(b.ExpMask[i][0])
		}
	}
	if share := mixed[0].ExpTokenShare; math.Abs(share-offTokens/tokens) > 1e-5 || on[0].ExpTokenShare != 0 {
		t.Errorf("exp token share %v (all on-policy: %v), want %v", share, on[0].ExpTokenShare, offTokens/tokens)
	}
	if off := mixed[0].OffPGLoss; math.Abs(off+math.Exp(0.4)) > 0.05 || on[0].OffPGLoss != 0 {
		t.Errorf("off-policy loss %v (all on-policy: %v), want about %v", off, on[0].OffPGLoss, -math.Exp(0.4))
	}
}
