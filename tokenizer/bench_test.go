package tokenizer

import (
	"path/filepath"
	"testing"
)

// qwen3BenchTexts returns the texts of the parity corpus, the corpus the
// JavaScript reference is timed on by testdata/bench_encode.mjs.
func qwen3BenchTexts(b *testing.B) (texts []string, bytes int) {
	var ref encodeReference
	readJSON(b, filepath.Join("testdata", "qwen3_encode.json"), &ref)
	for _, c := range ref.Cases {
		texts = append(texts, c.Text)
		bytes += len(c.Text)
	}
	return texts, bytes
}

// BenchmarkEncodeQwen3 encodes the parity corpus text by text; compare its
// MB/s with `node tokenizer/testdata/bench_encode.mjs`.
func BenchmarkEncodeQwen3(b *testing.B) {
	tok := loadQwen3(b)
	texts, n := qwen3BenchTexts(b)
	b.SetBytes(int64(n))
	tokens := 0
	for b.Loop() {
		for _, t := range texts {
			tokens += len(tok.Encode(t))
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkEncodeQwen3Parallel is BenchmarkEncodeQwen3 from all Ps at once,
// sharing one tokenizer and its cache.
func BenchmarkEncodeQwen3Parallel(b *testing.B) {
	tok := loadQwen3(b)
	texts, n := qwen3BenchTexts(b)
	b.SetBytes(int64(n))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, t := range texts {
				tok.Encode(t)
			}
		}
	})
}

// BenchmarkEncodeQwen3Cold encodes with the pre-token cache emptied before
// every round, which measures the BPE merges themselves.
func BenchmarkEncodeQwen3Cold(b *testing.B) {
	tok := loadQwen3(b)
	texts, n := qwen3BenchTexts(b)
	b.SetBytes(int64(n))
	for b.Loop() {
		tok.cache = newPieceCache()
		for _, t := range texts {
			tok.Encode(t)
		}
	}
}

// BenchmarkSplitQwen measures the hand-written pre-tokenizer against
// regexp2 running the same pattern.
func BenchmarkSplitQwen(b *testing.B) {
	texts, n := qwen3BenchTexts(b)
	re, err := newRegexSplitter(qwenPatternForRegexp2(QwenPattern))
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []struct {
		name string
		sp   splitter
	}{{"hand", qwenSplitter{maxDigits: 1}}, {"regexp2", re}} {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			var buf []string
			for b.Loop() {
				for _, t := range texts {
					buf = s.sp.split(t, buf[:0])
				}
			}
		})
	}
}
