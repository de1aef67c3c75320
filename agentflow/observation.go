package agentflow

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
)

// Observation turns an environment's step result into the user turn the
// policy sees next (reference §2.2 steps g-h). The texts of all state
// messages are joined by blank lines, whatever their role: a tool message's
// text is the tool's result. [BUG/QUIRK] fixed: the reference crashed on
// tool-role messages and handled them as environment errors. An empty
// observation with info["error"] becomes "[Error from environment: ...]".
// Tool calls are dropped, and text beyond maxBytes (zero: 1 MiB) is cut.
func Observation(res envclient.StepResult, maxBytes int) agentevolver.Message {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxObservationBytes
	}
	var parts []string
	for _, m := range res.State {
		if m.Content != "" {
			parts = append(parts, m.Content)
		}
	}
	content := strings.Join(parts, "\n\n")
	if content == "" {
		if e, ok := res.Info["error"]; ok && e != nil && e != "" {
			content = fmt.Sprintf("[Error from environment: %v]", e)
		}
	}
	if len(content) > maxBytes {
		cut := maxBytes
		for cut > 0 && !utf8.RuneStart(content[cut]) {
			cut--
		}
		content = content[:cut] + contextmgr.TruncationMarker
	}
	return agentevolver.Message{Role: agentevolver.RoleUser, Content: content}
}
