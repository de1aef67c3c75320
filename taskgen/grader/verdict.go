package grader

import "strings"

// Keywords ParseVerdict counts when a reply has no explicit verdict, as in
// the reference (§4.6 step 2).
var (
	verdictSuccessWords = []string{"success", "completed", "achieved", "accomplished", "solved"}
	verdictFailureWords = []string{"failed", "incomplete", "unsuccessful", "not completed", "not achieved"}
)

// ParseVerdict reads the LLM post-filter's validation reply (reference
// §4.6 step 2, the answer to ValidationMessages) exactly as the reference
// does. The reply is lowercased; if it contains "success: true" or
// "successful: true" it passes, else if it contains "success: false" or
// "successful: false" it fails (so a reply with both passes). Otherwise
// each of the words success, completed, achieved, accomplished, solved
// that occurs anywhere counts once for success, each of failed,
// incomplete, unsuccessful, not completed, not achieved once for failure,
// and the reply passes iff the success count is the larger. An empty
// reply fails.
//
// The counting is by substring and keeps the reference's traps:
// "unsuccessful" contains "success", "not completed" contains "completed"
// and "not achieved" contains "achieved", so each counts on both sides
// ("The task was unsuccessful." is 1 to 1 and fails, and so does "not
// completed" alone, while "not completed, but achieved" passes); words
// inside other words count ("successfully", "unsolved" for success);
// "failure" and "fail" count for nothing; and an explicit verdict written
// without the space, "Success:false", is not recognised but counts
// "success", so it passes.
func ParseVerdict(reply string) bool {
	if reply == "" {
		return false
	}
	s := pyLower(reply)
	if strings.Contains(s, "success: true") || strings.Contains(s, "successful: true") {
		return true
	}
	if strings.Contains(s, "success: false") || strings.Contains(s, "successful: false") {
		return false
	}
	return countContained(s, verdictSuccessWords) > countContained(s, verdictFailureWords)
}

// countContained counts the words that occur in s, each once.
func countContained(s string, words []string) int {
	n := 0
	for _, w := range words {
		if strings.Contains(s, w) {
			n++
		}
	}
	return n
}

// pyLower is Python's str.lower as far as ASCII words can tell: Go's
// simple case mapping plus the one unconditional multi-rune lowercase
// mapping, U+0130 (İ) to "i̇", which Go would lower to a plain "i" and so
// could complete a keyword that Python's would not.
func pyLower(s string) string {
	if strings.ContainsRune(s, 'İ') {
		s = strings.ReplaceAll(s, "İ", "i\u0307")
	}
	return strings.ToLower(s)
}
