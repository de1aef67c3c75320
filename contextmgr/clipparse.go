package contextmgr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Clip actions a clip model may choose for a message.
const (
	// ClipKeep leaves the message as it is.
	ClipKeep = "keep"
	// ClipRemove hides the message from later prompts.
	ClipRemove = "remove"
	// ClipCompress replaces the message by a shorter text.
	ClipCompress = "compress"
)

// Bounds on clip-model replies, which are untrusted model output.
const (
	// MaxClipReplyBytes bounds a reply ParseClipDecision accepts.
	MaxClipReplyBytes = 1 << 20
	// MaxClipDecisions bounds the decisions of one reply.
	MaxClipDecisions = 1000
)

// ErrClipReply reports a clip-model reply that is not a valid decision.
var ErrClipReply = errors.New("contextmgr: malformed clip reply")

// ClipDecision is the clip model's verdict on one tagged message.
type ClipDecision struct {
	// ID is the message's tag, e.g. "ER001" or "AR002".
	ID string `json:"id"`
	// Useful is the model's judgement of the message's value.
	Useful bool `json:"useful"`
	// Action is ClipKeep, ClipRemove or ClipCompress.
	Action string `json:"action"`
}

// ParseClipDecision parses a clip model's reply: exactly one fenced block
// (an optional "json" tag after the opening fence) holding a JSON list of
// {"id", "useful", "action"} objects. Every field is required, ids must be
// non-empty strings and actions one of ClipKeep, ClipRemove, ClipCompress.
// Errors wrap ErrClipReply.
func ParseClipDecision(reply string) ([]ClipDecision, error) {
	if len(reply) > MaxClipReplyBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrClipReply, len(reply), MaxClipReplyBytes)
	}
	body, err := fencedBody(reply)
	if err != nil {
		return nil, err
	}
	if rest, ok := strings.CutPrefix(body, "json"); ok {
		body = strings.TrimFunc(rest, pyIsSpace)
	}
	var items []map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(&items); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrClipReply, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the JSON list", ErrClipReply)
	}
	if len(items) > MaxClipDecisions {
		return nil, fmt.Errorf("%w: %d decisions, limit %d", ErrClipReply, len(items), MaxClipDecisions)
	}
	out := make([]ClipDecision, len(items))
	for i, item := range items {
		d := &out[i]
		for _, f := range []struct {
			key string
			dst any
		}{{"id", &d.ID}, {"useful", &d.Useful}, {"action", &d.Action}} {
			raw, ok := item[f.key]
			if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				return nil, fmt.Errorf("%w: decision %d has no %q", ErrClipReply, i, f.key)
			}
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return nil, fmt.Errorf("%w: decision %d field %q: %w", ErrClipReply, i, f.key, err)
			}
		}
		if d.ID == "" {
			return nil, fmt.Errorf("%w: decision %d has an empty id", ErrClipReply, i)
		}
		switch d.Action {
		case ClipKeep, ClipRemove, ClipCompress:
		default:
			return nil, fmt.Errorf("%w: decision %d has unknown action %q", ErrClipReply, i, d.Action)
		}
	}
	return out, nil
}

// fencedBody returns the trimmed text between the two ``` fences of reply,
// which must contain exactly two.
func fencedBody(reply string) (string, error) {
	reply = strings.TrimFunc(reply, pyIsSpace)
	if n := strings.Count(reply, "```"); n != 2 {
		return "", fmt.Errorf("%w: want exactly one fenced block, found %d fences", ErrClipReply, n)
	}
	return strings.TrimFunc(strings.Split(reply, "```")[1], pyIsSpace), nil
}
