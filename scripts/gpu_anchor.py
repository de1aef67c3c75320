#!/usr/bin/env python3
"""PyTorch + PEFT anchor for scripts/gpu-check.sh (docs/gpu.md).

Builds a Qwen2 model of the same shape as `agentevolver bench-gpu` with
random weights in bfloat16, adds LoRA adapters of rank r on every
projection (PEFT), and measures the same policy update (forward, PPO-clip
loss with GRPO-like +-1 advantages, token mean, backward, gradient-norm clip
1.0, AdamW on the adapters) in tokens/s, sampling (temperature 1, no stop
token) in new tokens/s at each generation batch size, and the peak of
torch.cuda.max_memory_allocated. Writes one JSON object whose fields are
those of the Go report's gpuAnchor (decoded strictly: add no field here
without adding it there).

Without torch it writes {"status": "skipped", ...} and exits 0; on an error
it writes {"status": "error", ...} and exits 1. After the training and after
each generation batch size it writes {"status": "partial", ...}, so a run
stopped by its time limit leaves what it measured.
"""

import argparse
import json
import statistics
import sys
import time

SHAPES = {
    "qwen2.5-0.5b": dict(vocab_size=151936, hidden_size=896, num_hidden_layers=24, num_attention_heads=14,
                         num_key_value_heads=2, intermediate_size=4864, rms_norm_eps=1e-6, rope_theta=1e6,
                         tie_word_embeddings=True, max_position_embeddings=32768),
    # bench-gpu's "ci" shape (cmd/agentevolver bench.go's "tiny").
    "ci": dict(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
               num_key_value_heads=2, intermediate_size=192, rms_norm_eps=1e-6, rope_theta=10000.0,
               tie_word_embeddings=False, max_position_embeddings=4096),
}
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="qwen2.5-0.5b", choices=sorted(SHAPES))
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq-len", type=int, default=512)
    p.add_argument("--prompt-len", type=int, default=256)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--gen-batch", default="1,64")
    p.add_argument("--gen-prompt", type=int, default=64)
    p.add_argument("--gen-tokens", type=int, default=64)
    p.add_argument("--gen-steps", type=int, default=2)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    a.gen_batches = [int(x) for x in a.gen_batch.split(",") if x.strip()]
    if not (0 < a.prompt_len < a.seq_len) or a.batch < 1 or a.steps < 1 or not a.gen_batches:
        p.error("need 0 < prompt-len < seq-len, batch >= 1, steps >= 1 and a generation batch")
    return a


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def run(a, save):
    import torch
    import peft
    import transformers

    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
        device_name = torch.cuda.get_device_name(0)
    else:
        device_name = "cpu"
    torch.manual_seed(1)
    cfg = transformers.Qwen2Config(**SHAPES[a.shape])
    model = transformers.Qwen2ForCausalLM(cfg).to(device=dev, dtype=torch.bfloat16)
    params = sum(p.numel() for p in model.parameters())
    lcfg = peft.LoraConfig(r=a.lora_r, lora_alpha=a.lora_r, lora_dropout=0.0, target_modules=TARGETS)
    model = peft.get_peft_model(model, lcfg)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5, weight_decay=0.01)

    g = torch.Generator(device="cpu").manual_seed(5)
    ids = torch.randint(0, cfg.vocab_size, (a.batch, a.seq_len), generator=g).to(dev)
    P = a.prompt_len
    targets = ids[:, P:]
    adv = torch.tensor([1.0 - 2.0 * (i % 2) for i in range(a.batch)], device=dev)[:, None]

    def response_logp():
        logits = model(input_ids=ids).logits[:, P - 1:-1].float()
        return torch.log_softmax(logits, -1).gather(-1, targets[..., None]).squeeze(-1)

    model.train()
    with torch.no_grad():
        old = response_logp()

    def step():
        logp = response_logp()
        ratio = torch.exp(logp - old)
        pg1 = -adv * ratio
        pg2 = -adv * torch.clamp(ratio, 1 - 0.2, 1 + 0.28)
        clipped = torch.maximum(pg1, pg2)
        dual = torch.minimum(-adv * 3.0, clipped)
        loss = torch.where(adv < 0, dual, clipped).mean()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return float(loss), float(norm)

    times, loss, norm = [], 0.0, 0.0
    for i in range(a.steps + 1):
        sync()
        t0 = time.perf_counter()
        loss, norm = step()
        sync()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times[1:])
    train = dict(batch=a.batch, seq_len=a.seq_len, tokens_per_step=a.batch * a.seq_len, first_step_s=times[0],
                 median_step_s=med, tokens_per_s=a.batch * a.seq_len / med, steps=a.steps, pg_loss=loss, grad_norm=norm)

    result = dict(status="partial", device=device_name, torch_version=torch.__version__, peft_version=peft.__version__,
                  params=params, trainable_params=trainable, train=train, generate=[],
                  peak_bytes=torch.cuda.max_memory_allocated() if dev.type == "cuda" else 0)
    save(result)  # a time limit during generation leaves the training numbers

    model.eval()
    gens = result["generate"]
    for b in a.gen_batches:
        prompts = torch.randint(0, cfg.vocab_size, (b, a.gen_prompt), generator=g).to(dev)
        mask = torch.ones_like(prompts)
        gt = []
        for i in range(a.gen_steps + 1):
            sync()
            t0 = time.perf_counter()
            with torch.no_grad():
                out = model.generate(input_ids=prompts, attention_mask=mask, max_new_tokens=a.gen_tokens,
                                     min_new_tokens=a.gen_tokens, do_sample=True, temperature=1.0, top_k=0,
                                     top_p=1.0, pad_token_id=0, eos_token_id=None)
            sync()
            gt.append(time.perf_counter() - t0)
            if out.shape != (b, a.gen_prompt + a.gen_tokens):
                raise RuntimeError(f"generate returned shape {tuple(out.shape)}")
        gmed = statistics.median(gt[1:])
        gens.append(dict(batch=b, prompt_len=a.gen_prompt, new_tokens=a.gen_tokens, first_s=gt[0], median_s=gmed,
                         tokens_per_s=b * a.gen_tokens / gmed, steps=a.gen_steps))
        save(result)
    result["peak_bytes"] = torch.cuda.max_memory_allocated() if dev.type == "cuda" else 0
    result["status"] = "ok"
    return result


def main(argv):
    a = parse_args(argv)
    try:
        import torch  # noqa: F401
        import peft  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        write(a.out, dict(status="skipped", reason=f"PyTorch + PEFT not installed: {e}"))
        return 0
    try:
        write(a.out, run(a, lambda r: write(a.out, r)))
    except Exception as e:  # the report records the failure; the script goes on
        write(a.out, dict(status="error", reason=f"{type(e).__name__}: {e}"))
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
