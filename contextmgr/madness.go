package contextmgr

import (
	"slices"
	"strings"
)

// imStart is chat markup a sane policy turn never contains.
const imStart = "<|im_start|>"

// RepetitionPenalty scores one policy turn (reference §2.3): -1 when the
// text contains "<|im_start|>", repeats words (HasRepeat over
// whitespace-separated words, window 5, patience 10) or repeats characters
// (window 4, patience 200); else 0.
func RepetitionPenalty(text string) float64 {
	switch {
	case strings.Contains(text, imStart):
		return -1
	case HasRepeat(pyFields(text), 5, 10):
		return -1
	case HasRepeat([]rune(text), 4, 200):
		return -1
	}
	return 0
}

// pyFields splits text at whitespace as Python's str.split() does (which
// also treats the separators U+001C..U+001F as whitespace).
func pyFields(text string) []string {
	return strings.FieldsFunc(text, pyIsSpace)
}

// HasRepeat reports whether seq keeps cycling through a few items: it keeps
// the window most recent distinct items; an item already in the window
// costs one unit of patience, a new one restores it; running out of
// patience reports true.
func HasRepeat[T comparable](seq []T, window, patience int) bool {
	record := make([]T, 0, window+1)
	left := patience
	for _, item := range seq {
		if !slices.Contains(record, item) {
			record = append(record, item)
			if len(record) > window {
				record = record[1:]
			}
			left = patience
			continue
		}
		left--
		if left <= 0 {
			return true
		}
	}
	return false
}

// HasNonASCII reports whether text contains a character outside ASCII and
// the reference's white list (common typographic symbols, emoji, CJK
// ideographs and Chinese punctuation). The reference computes it but does
// not penalise it.
func HasNonASCII(text string) bool {
	for _, r := range text {
		if !allowedRune(r) {
			return true
		}
	}
	return false
}

// Characters of the reference's white list that are not in a range.
const (
	commonSymbols = "‘’“”–—…•™©®°±µ′″℉℃·×"
	chinesePunct  = "，。！？、；：“”‘’（）【】《》（）——……「」『』"
)

// allowedRanges are the emoji and CJK ranges of the reference's white list.
var allowedRanges = [...][2]rune{
	{0x00, 0x7F},
	// emoji
	{0x1F300, 0x1F5FF}, {0x1F600, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F700, 0x1F77F},
	{0x1F780, 0x1F7FF}, {0x1F800, 0x1F8FF}, {0x1F900, 0x1F9FF}, {0x1FA00, 0x1FA6F},
	{0x1FA70, 0x1FAFF}, {0x2702, 0x27B0}, {0x24C2, 0x1F251},
	// CJK ideographs
	{0x4E00, 0x9FFF}, {0x3400, 0x4DBF}, {0x20000, 0x2A6DF}, {0x2A700, 0x2B73F},
	{0x2B740, 0x2B81F}, {0x2B820, 0x2CEAF}, {0xF900, 0xFAFF}, {0x2F800, 0x2FA1F},
}

func allowedRune(r rune) bool {
	for _, rg := range allowedRanges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return strings.ContainsRune(commonSymbols, r) || strings.ContainsRune(chinesePunct, r)
}
