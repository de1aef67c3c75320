// Package model is the policy network: a decoder-only transformer of the
// Qwen2 family (RMSNorm, rotary embeddings, grouped-query attention with
// q/k/v biases, SwiGLU MLP, optional tied embeddings) written in GoMLX.
//
// # Weights
//
// New draws random weights for a Config (Hugging Face config.json field
// names); Load reads a Hugging Face checkpoint directory (config.json plus
// *.safetensors, sharded or not); Save writes one. The weights live in a
// GoMLX context (Model.Context), one variable per Hugging Face tensor:
// "model.layers.0.self_attn.q_proj.weight" is variable "weight" in scope
// "/model/layers/0/self_attn/q_proj". Linear weights keep the Hugging Face
// [out, in] layout.
//
// Model.Export writes a directory that serving runtimes load as is:
// config.json (Qwen2ForCausalLM, torch_dtype, token ids),
// generation_config.json, the tokenizer's files and the weights in float32
// or bfloat16 (rounded to nearest even), sharded with
// model.safetensors.index.json when larger than a shard. Load reads it
// back: a float32 export gives the very same model.
//
// # LoRA
//
// Model.AddLoRA adds low-rank adapters with PEFT's settings (r,
// lora_alpha, lora_dropout, target_modules over the q/k/v/o and
// gate/up/down projections) and freezes the base weights, so a trainer
// that updates the trainable variables keeps gradients and optimiser
// state for the adapters alone. AdaptersOff views a context with the
// adapters off (the reference policy, without a copy of the weights);
// MergeLoRA folds them into the weights; Export writes merged weights and
// ExportAdapter / LoadAdapter write and read a PEFT adapter directory
// (adapter_config.json, adapter_model.safetensors).
//
// # Precision
//
// Options.SamplerWeights makes sampling (Generate, Policy) read bfloat16 or
// int8 copies of the matrix weights, made again whenever the float32
// weights change: decoding reads every weight once per token, so on a CPU a
// quarter of the bytes decodes a large model about as many times faster.
// Training and log-probs keep the float32 weights.
//
// Options.ComputeDType bfloat16 runs the decoder blocks' projections and
// attention products in bfloat16 while the weights, their gradients, the
// norms, softmaxes, output head and log-probs stay float32 (mixed
// precision); New and Load check that the backend runs every op it needs
// and fail with ErrUnsupportedDType otherwise.
//
// # Backends
//
// NewBackend chooses the GoMLX backend in one place: the pure-Go backend
// "gofast:ops_sequential" by default (a fork of GoMLX's simplego whose
// float32 matrix products use AVX-512 or AVX2 assembly and a portable Go
// kernel elsewhere; upstream simplego stays available as "go"), XLA when
// built with the "xla" tag and selected by $GOMLX_BACKEND ("xla:cpu",
// "xla:cuda"). A missing PJRT plugin is an ErrBackendUnavailable error,
// never a download.
//
// # Log-probs, for the trainer
//
// ResponseLogProbs (and TemperedResponseLogProbs) build the per-token
// log-probs and entropies of the response half of a padded batch inside a
// graph; they read the weights by name from the context they are given. A
// trainer uses them like this:
//
//	policy := m.Context()          // trainable weights
//	reference, _ := policy.Clone() // frozen copy for the KL term
//	// in the training graph, built by an Exec over policy:
//	logp, entropy := m.ResponseLogProbs(ctx, ids, pos, mask, targets, promptLen)
//	// ... loss from logp ...; grads := ctx.BuildTrainableVariablesGradientsGraph(loss)
//	// in a separate Exec over reference (no gradient):
//	refLogp, _ := m.ResponseLogProbs(ctx, ids, pos, mask, targets, promptLen)
//
// ids, pos and mask are [B,T] with the prompt in columns < promptLen (left
// padded) and the response after it (right padded); targets [B,T-promptLen]
// are the response tokens. Compute shifted targets and loss masks on the
// host: slicing inside a differentiated graph needs Pad, which the pure-Go
// backend lacks. Model.LogProbs runs the same graph for host slices (old
// log-probs, reference log-probs), padding shapes to a few bucket sizes so
// each compiles once.
//
// The matrix products of the model carry their own gradient, one
// DotGeneral per operand: GoMLX v0.26's stock DotGeneral gradient
// materialises the full [batch, lhs, rhs, contracted] product and made a
// training step of the tiny bench model 12x slower on the pure-Go backend.
// The attention softmax writes its gradient out too, p·(v − Σ v·p),
// instead of autodiff through Softmax's ops; its forward ops, so its
// values, are the stock ones.
//
// # Sampling
//
// Model.Generate samples batches of continuations with a KV cache
// (temperature, top-k, top-p, stop tokens, maximum length, seed) and
// returns token ids with their log-probs. Policy wraps a Model with a
// tokenizer and chat template into an llm.ChatModel whose completions carry
// the exact sampled token ids, so an agent flow can train on them without
// re-tokenising.
//
// # Performance on the pure-Go backend
//
// Matrix products dominate. Upstream simplego v0.26 multiplies them with
// scalar Go loops (about 8 GFLOP/s); the default "gofast" backend packs
// them for assembly micro-kernels (150-200 GFLOP/s for the benchmark
// shapes with AVX-512), after which exp (softmax, SiLU) and elementwise
// ops lead the profile. The backend fuses chains of elementwise ops and
// attention's products with their softmax (in forward-only graphs the
// whole attention), so those intermediates stay in cache; `agentevolver
// bench --op-profile` shows where a step's time goes. The graphs avoid what else costs there: keys and values
// are kept in the layouts DotGeneral consumes without transposing, the KV
// cache is written by a scatter into donated buffers rather than a
// broadcast Where, broadcasts shared by all layers are made once, and
// products of a few rows by a wide weight (the output head while decoding)
// are split so that they are not padded to 32-row blocks.
//
// Errors are returned, never panicked: GoMLX reports graph errors by
// panicking, and every exported host-level function here recovers them as
// ErrGraph. Test for the sentinels (ErrBadConfig, ErrMissingTensor,
// ErrTensorMismatch, ErrBadCheckpoint, ErrBadInput, ErrGraph,
// ErrBackendUnavailable) with errors.Is.
package model
