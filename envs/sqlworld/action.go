package sqlworld

import (
	"fmt"
	"strings"

	"github.com/org/agentevolver"
)

// MaxActionBytes bounds an action's content; a longer one gets an error
// observation.
const MaxActionBytes = 16 << 10

// Action kinds.
const (
	// KindQuery runs a query and shows its result.
	KindQuery = "sql"
	// KindSubmit submits the final query, whose result is the answer, and
	// ends the episode.
	KindSubmit = "submit"
)

// Action is a parsed agent action: one fenced block.
type Action struct {
	// Kind is KindQuery or KindSubmit.
	Kind string
	// SQL is the block's text, trimmed. It is not checked yet: running it
	// checks it.
	SQL string
}

// ActionError is a malformed action. Its Detail becomes the observation
// "error: <Detail>"; the episode goes on.
type ActionError struct{ Detail string }

func (e *ActionError) Error() string { return "sqlworld: malformed action: " + e.Detail }

// ParseAction reads one action from an assistant message: exactly one
// fenced block tagged sql or submit (case-insensitive), such as
//
//	```sql
//	SELECT name FROM countries WHERE alpha_2 = 'NO'
//	```
//
// Text around the block is ignored, and so are blocks with another tag;
// a block left open at the end of the message (a model stopped at its
// closing fence) runs to the end. Every failure is an *ActionError.
func ParseAction(msg agentevolver.Message) (Action, error) {
	content := msg.Content
	if len(content) > MaxActionBytes {
		return Action{}, &ActionError{fmt.Sprintf("the message is %d bytes; at most %d are allowed", len(content), MaxActionBytes)}
	}
	var found []Action
	untagged := false
	rest := content
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		nl := strings.IndexByte(rest, '\n')
		var tag, body string
		if nl < 0 {
			tag, rest = rest, ""
		} else {
			tag, rest = rest[:nl], rest[nl+1:]
		}
		tag = strings.ToLower(strings.TrimSpace(tag))
		if j := strings.Index(rest, "```"); j >= 0 {
			body, rest = rest[:j], rest[j+3:]
		} else {
			body, rest = rest, ""
		}
		switch tag {
		case KindQuery, KindSubmit:
			found = append(found, Action{Kind: tag, SQL: strings.TrimSpace(body)})
		case "":
			untagged = true
		}
	}
	switch {
	case len(found) == 0 && untagged:
		return Action{}, &ActionError{"a code block needs the tag sql (to run a query) or submit (to answer): ```sql ... ```"}
	case len(found) == 0:
		return Action{}, &ActionError{"no action found; send one ```sql block to run a query or one ```submit block with the final query"}
	case len(found) > 1:
		return Action{}, &ActionError{fmt.Sprintf("%d blocks found; send exactly one ```sql or ```submit block per turn", len(found))}
	case found[0].SQL == "":
		return Action{}, &ActionError{"the " + found[0].Kind + " block is empty"}
	}
	return found[0], nil
}

// Message renders a as an assistant message that ParseAction reads back.
func (a Action) Message() agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```" + a.Kind + "\n" + a.SQL + "\n```"}
}
