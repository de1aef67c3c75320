package contextmgr

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/org/agentevolver"
)

// Authors of an ExtendedMessage. The author, not the chat role, decides
// whether a message is trained on: only AuthorLLM is.
const (
	// AuthorLLM marks a policy turn that is trained on.
	AuthorLLM = "llm"
	// AuthorEnv marks an environment observation.
	AuthorEnv = "env"
	// AuthorInit marks an initial message of the episode (system prompt,
	// task).
	AuthorInit = "initialization"
	// AuthorUser marks an instruction added by a context strategy.
	AuthorUser = "user"
	// AuthorMemory marks a memory summary written by the Memory strategy.
	AuthorMemory = "memory"
	// AuthorLLMNoTrain marks an earlier policy turn replayed in a later
	// prompt: part of the context, not trained on.
	AuthorLLMNoTrain = "llm(do_not_train)"
	// DiscardSuffix, appended to any author, marks a message that was
	// removed from future contexts.
	DiscardSuffix = "(discard)"
)

// EmptyContent replaces an empty message text in later prompts, so that a
// chat template never renders an empty turn; a policy turn that reported
// its token ids is shown empty, as its sample holds it.
const EmptyContent = "(Empty Content)"

// TruncationMarker ends an environment observation clipped by
// ClipEnvContent.
const TruncationMarker = "... truncate ..."

// ExtendedMessage is one message of an episode together with what the
// trainer needs to learn from it: who wrote it, the exact token ids it
// occupies in the rendered conversation, and the policy's sampling
// log-probabilities for those ids when known.
type ExtendedMessage struct {
	// Author says where the message came from (AuthorLLM, AuthorEnv, ...).
	Author string `json:"author"`
	// Role is the chat role used to render the message.
	Role string `json:"role"`
	// Content is the message text as produced.
	Content string `json:"content"`
	// FutureContent is the text later prompts show: Content, clipped for
	// long environment observations, and EmptyContent when empty (except
	// for a policy turn with sampled ids, shown as sampled).
	FutureContent string `json:"content_for_future"`
	// ToolCalls are the structured tool calls of a policy turn, if any.
	ToolCalls []agentevolver.ToolCall `json:"tool_calls,omitempty"`
	// Tokens are the ids the message occupies in the rendered conversation,
	// chat-template header and tail included.
	Tokens []int `json:"token_arr"`
	// LogProbs, when non-nil, has one entry per token: the policy's
	// sampling log-probability for tokens it generated, 0 for the others.
	LogProbs []float64 `json:"logprobs,omitempty"`
	// Unclosed marks a policy turn that the policy did not end with the
	// end-of-turn token: its reply was cut at the length limit
	// (finish_reason "length") or ended on another stop token or a stop
	// string. The end-of-turn token in Tokens was then written by the chat
	// template, not sampled, and LossMask gives it no loss.
	Unclosed bool `json:"unclosed,omitempty"`
	// UUID identifies the message.
	UUID string `json:"uuid"`
	// BuildFromUUID is the UUID of the message this one was derived from
	// (a re-rendered history entry), or empty.
	BuildFromUUID string `json:"build_from_uuid,omitempty"`
}

// NeedTraining reports whether the message's tokens carry loss. Only
// AuthorLLM messages do. An author outside the known set (the constants
// above, or anything ending in DiscardSuffix) is an error wrapping
// ErrUnknownAuthor.
func (m *ExtendedMessage) NeedTraining() (bool, error) {
	switch m.Author {
	case AuthorLLM:
		return true, nil
	case AuthorEnv, AuthorInit, AuthorUser, AuthorMemory, AuthorLLMNoTrain:
		return false, nil
	}
	if strings.HasSuffix(m.Author, DiscardSuffix) {
		return false, nil
	}
	return false, fmt.Errorf("%w: %q", ErrUnknownAuthor, m.Author)
}

// LossMask returns one 0/1 entry per token (reference §3.1 get_loss_mask).
// Messages that are not trained on are all zeros. For a policy turn every
// token is 1 except the first occurrence of blackout (the assistant header)
// and everything after the first eos; eos itself stays 1 so the policy
// learns to stop.
//
// [BUG/QUIRK] fixed: in an Unclosed turn the first eos is 0 too. The
// reference trains on the end-of-turn token the template appends to a reply
// cut at the length limit, a token the policy never sampled: it teaches the
// policy to stop where it did not, with a sampling log-prob that does not
// exist (the trainer's rollout/logprob_diff_max showed 6-9 nats there).
func (m *ExtendedMessage) LossMask(blackout []int, eos int) ([]int, error) {
	train, err := m.NeedTraining()
	if err != nil {
		return nil, err
	}
	mask := make([]int, len(m.Tokens))
	if !train {
		return mask, nil
	}
	for i := range mask {
		mask[i] = 1
	}
	if i := FindSublist(m.Tokens, blackout, false); i >= 0 {
		for j := i; j < i+len(blackout); j++ {
			mask[j] = 0
		}
	}
	if i := slices.Index(m.Tokens, eos); i >= 0 {
		if m.Unclosed {
			i-- // the template's eos: not the policy's token
		}
		for j := i + 1; j < len(mask); j++ {
			mask[j] = 0
		}
	}
	return mask, nil
}

// Message returns the message as later prompts show it: Role, FutureContent
// and ToolCalls.
func (m *ExtendedMessage) Message() agentevolver.Message {
	return agentevolver.Message{Role: m.Role, Content: m.FutureContent, ToolCalls: m.ToolCalls}
}

// clone returns a deep copy.
func (m *ExtendedMessage) clone() *ExtendedMessage {
	c := *m
	c.ToolCalls = slices.Clone(m.ToolCalls)
	c.Tokens = slices.Clone(m.Tokens)
	c.LogProbs = slices.Clone(m.LogProbs)
	return &c
}

// ClipEnvContent shortens an environment observation of nTokens tokens to
// fit limit tokens (reference §3.1): when nTokens > limit it keeps the first
// floor(chars * (limit-100) / nTokens) code points and appends
// TruncationMarker. The 100-token margin leaves room for the marker and the
// template.
//
// [BUG/QUIRK] fixed: with limit < 100 the reference computes a negative
// length and Python's slice then keeps text from the wrong end; here the
// length is clamped to 0, so only the marker remains.
func ClipEnvContent(content string, nTokens, limit int) string {
	if nTokens <= limit {
		return content
	}
	nChars := utf8.RuneCountInString(content)
	keep := int(float64(nChars) * (float64(limit-100) / float64(nTokens)))
	keep = max(keep, 0)
	return prefixRunes(content, keep) + TruncationMarker
}

// prefixRunes returns the first n code points of s (invalid bytes count as
// one each, as utf8.RuneCountInString counts them).
func prefixRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// futureContent returns what later prompts show of content: clipped when
// clip is set (count gives its token count) and EmptyContent when empty.
func futureContent(content string, clip bool, limit int, count func(string) int) string {
	if clip {
		content = ClipEnvContent(content, count(content), limit)
	}
	if content == "" {
		return EmptyContent
	}
	return content
}

// newUUID returns 32 random hex digits.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
	return hex.EncodeToString(b[:])
}
