#!/usr/bin/env python3
"""PyTorch reference for `agentevolver bench train|logprob` (README.md in this folder).

Runs the same Qwen2-family decoder and the same step definitions as the Go benchmarks, so both can
be measured in one run on one machine:

    OMP_WAIT_POLICY=PASSIVE python3 testdata/bench/torch_bench.py train --model small

prints one JSON line like the Go command: {"model", "what", "tokens_per_s", "median_step_s"}.
Needs Debian's python3-torch (1.13); nothing is downloaded.
"""
import argparse
import json
import math
import os
import statistics
import time

import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        d, h, kv = c["hidden_size"], c["num_heads"], c["num_kv_heads"]
        hd = d // h
        self.h, self.kv, self.hd, self.eps = h, kv, hd, c["rms_norm_eps"]
        self.q = torch.nn.Linear(d, h * hd)
        self.k = torch.nn.Linear(d, kv * hd)
        self.v = torch.nn.Linear(d, kv * hd)
        self.o = torch.nn.Linear(h * hd, d, bias=False)
        self.gate = torch.nn.Linear(d, c["intermediate_size"], bias=False)
        self.up = torch.nn.Linear(d, c["intermediate_size"], bias=False)
        self.down = torch.nn.Linear(c["intermediate_size"], d, bias=False)
        self.n1 = torch.nn.Parameter(torch.ones(d))
        self.n2 = torch.nn.Parameter(torch.ones(d))

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        y = rms(x, self.n1, self.eps)
        q = self.q(y).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k(y).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v(y).view(b, t, self.kv, self.hd).transpose(1, 2)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        rep = self.h // self.kv
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.hd) + mask
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, -1)
        x = x + self.o(a)
        y = rms(x, self.n2, self.eps)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


def rms(x, w, eps):
    return w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), -1)
    return x * cos + rotated * sin


class Model(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed = torch.nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.blocks = torch.nn.ModuleList(Block(c) for _ in range(c["num_layers"]))
        self.norm = torch.nn.Parameter(torch.ones(c["hidden_size"]))
        self.head = torch.nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)

    def logprobs(self, ids, prompt_len):
        """Per-token log-probs of ids[:, prompt_len:], the head run only there."""
        b, t = ids.shape
        hd = self.c["hidden_size"] // self.c["num_heads"]
        inv = 1.0 / (self.c["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd))
        freqs = torch.outer(torch.arange(t).float(), inv)
        emb = torch.cat((freqs, freqs), -1)
        cos, sin = emb.cos(), emb.sin()
        mask = torch.full((t, t), -1e9).triu(1)
        x = self.embed(ids)
        for blk in self.blocks:
            x = blk(x, cos, sin, mask)
        h = rms(x[:, prompt_len - 1 : t - 1], self.norm, self.c["rms_norm_eps"])
        logits = self.head(h)
        return torch.gather(logits.log_softmax(-1), -1, ids[:, prompt_len:, None]).squeeze(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["train", "logprob"])
    ap.add_argument("--model", default="tiny")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "models.json")) as f:
        c = json.load(f)[args.model]
    b, t, p = c["batch_size"], c["seq_len"], c["prompt_len"]
    policy = Model(c)
    ids = torch.randint(0, c["vocab_size"], (b, t))
    mask = torch.ones(b, t - p)
    adv = torch.randn(b, t - p)
    old = torch.zeros(b, t - p)

    if args.what == "logprob":
        def step():
            with torch.no_grad():
                policy.logprobs(ids, p)
    else:
        reference = Model(c)
        reference.load_state_dict(policy.state_dict())
        reference.requires_grad_(False)
        opt = torch.optim.AdamW(policy.parameters(), lr=1e-4, weight_decay=0.01)
        with torch.no_grad():
            old = policy.logprobs(ids, p)

        def step():
            with torch.no_grad():
                ref = reference.logprobs(ids, p)
            lp = policy.logprobs(ids, p)
            ratio = (lp - old).exp()
            pg = torch.maximum(-adv * ratio, -adv * ratio.clamp(1 - 0.2, 1 + 0.28))
            pg = torch.where(adv < 0, torch.minimum(pg, -adv * 3.0), pg)  # dual clip
            kl = (ref - lp).exp() - (ref - lp) - 1  # k3, low variance
            loss = ((pg + 0.001 * kl) * mask).sum() / mask.sum()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()

    for _ in range(args.warmup):
        step()
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(json.dumps({"model": args.model, "what": args.what, "tokens_per_s": b * t / median,
                      "median_step_s": median, "steps": args.steps, "backend": "torch " + torch.__version__}))


if __name__ == "__main__":
    main()
