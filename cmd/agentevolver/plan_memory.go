package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/org/agentevolver/model"
)

// The memory plan estimates what one device holds while the trainer runs a
// configuration, as the trainer does it. All sizes are bytes; P is the
// number of weights, A the number of LoRA adapter weights, L layers, D
// hidden size, H query heads, KV key/value heads, hd head width, I
// intermediate size, V vocabulary, b the training micro-batch (samples),
// T its sequence length, C the episodes rolled out at once and Tr their
// context length, N the devices the updates run on (trainer.devices).
//
// State that lives through the whole run, on every device:
//
//	parameters     4·(P + A − t) + 4·t / N   (stored float32; actor.dtype
//	               bfloat16 is compute precision only); the trainable
//	               weights are sharded over the devices, frozen ones not
//	master weights 0           (the stored weights are the float32 master)
//	optimizer      8·t / N     AdamW's two float32 moments per trainable
//	               weight (t = P, or A with LoRA), sharded over the devices
//	reference      4·P         a frozen copy for the KL term; 0 with LoRA
//	               (the base with adapters off) or without use_kl_loss
//	sampler copies the in-process sampler's copies of the matrix weights
//	               (model.Config.SamplerCopyBytes): W + 4 B per output
//	               with rollout.weight_dtype int8, 2·W with bfloat16, 4·W
//	               for a model of at most 16 MiB of them in float32, else
//	               0, W the weights of the projections and the head; 0
//	               with rollout.engine remote
//
// A training micro-batch adds (no activation recomputation; every tensor
// autodiff needs stays alive until the backward pass), each device
// holding ceil(b/N) of its rows:
//
//	gradients      4·t         (summed over the devices, whole on each)
//	gathered       4·t·(N−1)/N the trainable weights reassembled for the
//	               step (0 on one device)
//	activations    a·b·T·L·(8·D + 3·KV·hd + 4·I + 2·H·T + 2·r·M)
//	               + 8·b·T·V
//	compute copies 2·P with bfloat16 compute (the weights converted for
//	               the decoder blocks), else 0
//
// where a = 4 (float32) or 2 (bfloat16) and M the number of LoRA target
// modules: per token and layer the two norms' inputs and outputs, q, k, v
// before and after the rotary embedding, the attention scores and softmax
// ([H, T, T] per sample: the attention is not fused), the attention
// output and residual, the MLP's gate, up, SiLU and product, the LoRA
// down-projections; then the float32 logits and log-softmax [T, V].
//
// In-process rollouts (rollout.engine local) run on the first device and
// add, in place of the training micro-batch:
//
//	kv-cache       a·C·Tr·L·2·KV·hd
//	prefill        a·C·H·Tr²  (one layer's attention scores over the prompts)
//	               + the compute copies
//
// With rollout.engine remote the servers hold both. The peak is the
// lasting state plus the larger of the two phases plus a fixed reserve for
// the runtime (CUDA context, XLA workspace).

// planSettings are the settings of a plan.
type planSettings struct {
	dtype       model.ExportDType // compute precision of activations and KV cache
	loraR       int               // 0: full fine-tuning
	loraTargets []string          // module names, e.g. q_proj
	useKL       bool
	microBatch  int
	trainLen    int // T
	concurrency int // C
	rolloutLen  int // Tr
	remote      bool
	sampler     model.SamplerWeights // rollout.weight_dtype
	devices     int
	reserve     float64
}

// loraParams returns the adapter weights of rank r over targets: r·(in+out)
// per adapted matrix.
func loraParams(c model.Config, r int, targets []string) float64 {
	d, q, kv, inter := c.HiddenSize, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim, c.IntermediateSize
	dims := map[string]int{"q_proj": d + q, "k_proj": d + kv, "v_proj": d + kv, "o_proj": q + d,
		"gate_proj": d + inter, "up_proj": d + inter, "down_proj": inter + d}
	n := 0
	for _, t := range targets {
		n += dims[t]
	}
	return float64(r) * float64(n) * float64(c.NumHiddenLayers)
}

// planLine is one row of the plan.
type planLine struct {
	name    string
	bytes   float64
	formula string
}

// memoryPlan is a computed plan.
type memoryPlan struct {
	lines []planLine
	peak  float64
	state float64 // the lasting state alone
}

func (p memoryPlan) fits(deviceMemory float64) bool { return p.peak <= deviceMemory }

// computePlan returns the per-device memory of c under s.
func computePlan(c model.Config, s planSettings) memoryPlan {
	P := float64(c.NumParameters())
	L, D, H, KV, hd, I, V := float64(c.NumHiddenLayers), float64(c.HiddenSize), float64(c.NumAttentionHeads),
		float64(c.NumKeyValueHeads), float64(c.HeadDim), float64(c.IntermediateSize), float64(c.VocabSize)
	a := 4.0
	if s.dtype == model.ExportBFloat16 {
		a = 2
	}
	n := float64(max(s.devices, 1))
	A := 0.0
	trainable := P
	if s.loraR > 0 {
		A = loraParams(c, s.loraR, s.loraTargets)
		trainable = A
	}
	b, T := math.Ceil(float64(s.microBatch)/n), float64(s.trainLen)
	C, Tr := float64(s.concurrency), float64(s.rolloutLen)
	r, M := float64(s.loraR), float64(len(s.loraTargets))
	if s.loraR == 0 {
		M = 0
	}

	var lines []planLine
	add := func(name string, bytes float64, formula string) float64 {
		lines = append(lines, planLine{name, bytes, formula})
		return bytes
	}
	var state float64
	params := "4 B x " + count(P) + " weights"
	if A > 0 {
		params += " + 4 B x " + count(A) + " adapter weights"
	}
	if n > 1 {
		params += fmt.Sprintf(" (the %s trainable / %g devices)", count(trainable), n)
	}
	state += add("parameters", 4*(P+A-trainable)+4*trainable/n, params)
	state += add("master weights", 0, "none (the stored weights are float32)")
	shard := ""
	if n > 1 {
		shard = fmt.Sprintf(" / %g devices (sharded)", n)
	}
	state += add("optimizer", 8*trainable/n, "AdamW m and v: 2 x 4 B x "+count(trainable)+" trainable"+shard)
	switch {
	case !s.useKL:
		state += add("reference", 0, "none (use_kl_loss is off)")
	case s.loraR > 0:
		state += add("reference", 0, "none (the base model with adapters off)")
	default:
		state += add("reference", 4*P, "4 B x "+count(P)+" frozen weights for the KL term")
	}
	switch copies := float64(c.SamplerCopyBytes(s.sampler)); {
	case s.remote:
		add("sampler copies", 0, "none (rollout.engine remote)")
	case copies == 0:
		add("sampler copies", 0, "none (float32 weights read as they are)")
	default:
		state += add("sampler copies", copies, fmt.Sprintf("the matrix weights as the in-process sampler reads them (%s)", cmp.Or(string(s.sampler), "float32, transposed: a small model")))
	}
	grads := add("gradients", 4*trainable, "4 B x "+count(trainable)+" trainable")
	if n > 1 {
		grads += add("gathered weights", 4*trainable*(n-1)/n, fmt.Sprintf("4 B x %s trainable x %g/%g reassembled for the step", count(trainable), n-1, n))
	} else {
		add("gathered weights", 0, "none (one device)")
	}
	perTokenLayer := 8*D + 3*KV*hd + 4*I + 2*H*T + 2*r*M
	rows := fmt.Sprintf("%g", b)
	if n > 1 {
		rows = fmt.Sprintf("%g (of %d, over %g devices)", b, s.microBatch, n)
	}
	act := add("activations", a*b*T*L*perTokenLayer+8*b*T*V,
		fmt.Sprintf("%g B x %s x %g tokens x %g layers x %s values + 8 B x %g x %g x %g logits", a, rows, T, L, count(perTokenLayer), b, T, V))
	copies := 0.0
	if a == 2 {
		copies = add("compute copies", 2*P, "2 B x "+count(P)+" weights converted to bfloat16")
	} else {
		add("compute copies", 0, "none (float32 compute)")
	}
	var kv, prefill float64
	if s.remote {
		add("kv-cache", 0, "none (rollout.engine remote: the servers hold it)")
		add("prefill attention", 0, "none (rollout.engine remote)")
	} else {
		kv = add("kv-cache", a*C*Tr*L*2*KV*hd, fmt.Sprintf("%g B x %g sequences x %g tokens x %g layers x 2 x %g", a, C, Tr, L, KV*hd))
		prefill = add("prefill attention", a*C*H*Tr*Tr, fmt.Sprintf("%g B x %g sequences x %g heads x %g² scores (one layer)", a, C, H, Tr))
	}
	add("reserve", s.reserve, "runtime (CUDA context, XLA workspace; --reserve)")
	rollout := 0.0
	if !s.remote {
		rollout = kv + prefill + copies
	}
	peak := state + max(grads+act+copies, rollout) + s.reserve
	lines = append(lines, planLine{"peak", peak, "lasting state + max(gradients + gathered + activations + copies, kv-cache + prefill attention + copies) + reserve"})
	return memoryPlan{lines: lines, peak: peak, state: state + s.reserve}
}

// maxFittingLength returns the longest sequence length, a multiple of 256
// no longer than s's, at which both training and rollout sequences capped
// to it fit in deviceMemory, or 0 when none does.
func maxFittingLength(c model.Config, s planSettings, deviceMemory float64) int {
	capped := func(t int) planSettings {
		s2 := s
		s2.trainLen, s2.rolloutLen = min(s.trainLen, t), min(s.rolloutLen, t)
		return s2
	}
	limit := max(s.trainLen, s.rolloutLen)
	if computePlan(c, capped(limit)).fits(deviceMemory) {
		return limit
	}
	lo, hi := 0, limit/256 // lo fits (0 = none), hi does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if computePlan(c, capped(mid*256)).fits(deviceMemory) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo * 256
}

// count formats a number of values: 7.62 B, 40.4 M, 1234.
func count(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f B", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", n/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1f k", n/1e3)
	}
	return strconv.FormatFloat(n, 'f', -1, 64)
}

// formatBytes writes a size in decimal units (GB = 10⁹ bytes, as device
// memory is quoted).
func formatBytes(n float64) string {
	for _, u := range []struct {
		unit string
		size float64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if n >= u.size {
			return fmt.Sprintf("%.1f %s", n/u.size, u.unit)
		}
	}
	return fmt.Sprintf("%.0f B", n)
}

// parseByteSize reads a size such as "141GB", "5 GB", "2GiB", "500MB",
// "5e9" or "1024". Decimal units (kB, MB, GB, TB) are powers of 1000,
// binary ones (KiB, MiB, GiB, TiB) powers of 1024.
func parseByteSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) && r != 'e' && r != 'E' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = strings.TrimSpace(s[:i]), strings.ToLower(strings.TrimSpace(s[i:]))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad size %q (want e.g. 141GB, 2GiB, 500MB)", s)
	}
	units := map[string]float64{"": 1, "b": 1, "kb": 1e3, "k": 1e3, "mb": 1e6, "m": 1e6, "gb": 1e9, "g": 1e9, "tb": 1e12, "t": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
	mult, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("bad size %q: unknown unit %q", s, unit)
	}
	if v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v * mult), nil
}

// parseLoRATargets reads a comma-separated list of module names ("all" for
// every projection).
func parseLoRATargets(s string) ([]string, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(model.LoRAModules), nil
	}
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if !slices.Contains(model.LoRAModules, t) {
			return nil, fmt.Errorf("LoRA target %q is not one of %s", t, strings.Join(model.LoRAModules, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}
