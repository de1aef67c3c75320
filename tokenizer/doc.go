// Package tokenizer turns text into token ids and back, and renders chat
// message lists into the text a model is trained on.
//
// Two tokenizers are provided:
//
//   - ByteLevel maps every byte to its own id (0..255) and adds the ChatML
//     special tokens after them, so that a tiny model can be trained from
//     scratch with the same chat template as a Qwen model. Any byte string
//     round-trips exactly.
//   - BPE loads a Hugging Face tokenizer.json with a byte-level BPE model, as
//     used by the Qwen2.5 and Qwen3 families, and produces the same ids as the
//     Hugging Face implementation: added tokens are matched first (leftmost,
//     longest), the rest is NFC-normalised, split by the model's
//     pre-tokenizer pattern (a hand-written splitter for the Qwen/cl100k
//     pattern, regexp2 for other patterns), mapped to the GPT-2 byte alphabet
//     and merged by rank.
//
// TrainBPE learns a compact byte-level BPE vocabulary from a corpus (for a
// small model trained from scratch on its own environment's text) with the
// same pipeline as the Qwen tokenizers, the ChatML special tokens and the
// Qwen3 chat template; (*BPE).Save writes any BPE as Hugging Face
// tokenizer.json and tokenizer_config.json files that Load, and the Hugging
// Face libraries, read back with the same ids.
//
// ChatML renders messages the way the Qwen2.5 and Qwen3 chat templates in
// tokenizer_config.json do (default system prompt, generation prompt,
// enable_thinking=false, reasoning blocks of earlier assistant turns, tool
// calls and tool responses), natively in Go.
//
// Optional capabilities are found by type assertion: a Tokenizer may also be
// a SpecialTokens (end-of-sequence and padding ids) or a TemplateProvider (its
// chat template).
package tokenizer
