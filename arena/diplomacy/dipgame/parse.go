package dipgame

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/arena/diplomacy"
)

// Bounds of what the parsers read from one reply.
const (
	// MaxReplyBytes bounds the reply text the parsers read (the rest is
	// ignored), cut at a rune boundary.
	MaxReplyBytes = avalon.MaxParseBytes
	// MaxMessagesPerReply bounds the negotiation messages one reply may
	// send; later ones are dropped.
	MaxMessagesPerReply = 8
	// MaxMessageBytes bounds one negotiation message's content.
	MaxMessageBytes = 1 << 10
)

// Recipient of a message to every power.
const Global = "GLOBAL"

// Message is one negotiation message.
type Message struct {
	Sender    string `json:"sender"`
	Recipient string `json:"recipient"` // a power's name or Global
	Content   string `json:"content"`
}

// ErrUnreadable reports a reply from which nothing could be read.
var ErrUnreadable = errors.New("dipgame: unreadable reply")

// Public returns the part of a reply the other powers may see: thinking
// sections and history tags removed (as avalon.Public does), bounded by
// MaxReplyBytes.
func Public(reply string) string { return avalon.Public(reply) }

// ParseNegotiation reads the negotiation messages of sender's reply, with
// the reference's fallbacks (extension spec §1.3.4):
//
//  1. a ```json fence is dropped; the first '[' and its matching ']'
//     (string- and escape-aware) are decoded as a JSON array of
//     {message_type, recipient, content} objects. Objects with empty
//     content are skipped. A message_type other than "private" or
//     "global" means private when a recipient is given, else global. A
//     private message needs a recipient that is a power other than the
//     sender (case-insensitive); otherwise it goes to every power, as in
//     the reference.
//  2. if no array decodes: every line "POWER: text" is a private message
//     to that power;
//  3. if still nothing: the whole public reply is one global message.
//
// Unlike the reference, an array that decodes but is empty means "no
// message" (a deliberate silence), not fallback 3. At most
// MaxMessagesPerReply messages are kept, each cut at MaxMessageBytes
// (invalid UTF-8 replaced by U+FFFD).
func ParseNegotiation(reply string, sender diplomacy.Power) []Message {
	text := Public(reply)
	var out []Message
	add := func(recipient, content string) {
		content = strings.TrimSpace(clip(strings.ToValidUTF8(content, "\uFFFD"), MaxMessageBytes))
		if content == "" || len(out) >= MaxMessagesPerReply {
			return
		}
		out = append(out, Message{Sender: sender.String(), Recipient: recipient, Content: content})
	}
	if arr, ok := jsonArray(text); ok {
		var items []json.RawMessage
		if json.Unmarshal([]byte(arr), &items) == nil {
			for _, raw := range items {
				var m struct {
					Type      any `json:"message_type"`
					Recipient any `json:"recipient"`
					Content   any `json:"content"`
				}
				if json.Unmarshal(raw, &m) != nil {
					continue
				}
				content, _ := m.Content.(string)
				typ, _ := m.Type.(string)
				rcpt, hasRcpt := m.Recipient.(string)
				typ = strings.ToLower(strings.TrimSpace(typ))
				if typ != "private" && typ != "global" {
					typ = "global"
					if m.Recipient != nil {
						typ = "private"
					}
				}
				to := Global
				if typ == "private" && hasRcpt {
					if p, err := diplomacy.ParsePower(strings.TrimSpace(rcpt)); err == nil && p != sender {
						to = p.String()
					}
				}
				add(to, content)
			}
			return out
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		name, body, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if p, err := diplomacy.ParsePower(strings.TrimSpace(name)); err == nil && p != sender {
			add(p.String(), body)
		}
	}
	if len(out) == 0 {
		add(Global, text)
	}
	return out
}

// jsonArray returns the first '[' … matching ']' span of s, skipping
// brackets inside JSON strings.
func jsonArray(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "```json")
	s = strings.TrimSuffix(s, "```")
	start := strings.IndexByte(s, '[')
	if start < 0 {
		return "", false
	}
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return s[start : i+1], true
			}
		}
	}
	return "", false
}

// OrderChoice is what ParseOrders read from a reply.
type OrderChoice struct {
	// Orders are the chosen orders, at most one per orderable location,
	// in the reference syntax.
	Orders []string `json:"orders"`
	// Fallback reports that no {"orders": [...]} object gave an order and
	// the orders were found as substrings of the reply.
	Fallback bool `json:"fallback,omitempty"`
	// Dropped are orders of the reply that were not used, and why (not a
	// possible order, a second order for a unit).
	Dropped []diplomacy.Rejection `json:"dropped,omitempty"`
}

// ParseOrders reads power's orders from a reply, given its possible
// orders per orderable location (Game.PossibleOrders restricted to
// Game.OrderableLocations), with the reference's two steps (§1.3.4):
//
//  1. the span from the first '{' to the last '}' holding "orders" is
//     decoded as {"orders": [...]}; each entry that is a possible order
//     is kept. An entry is compared in the canonical syntax after
//     diplomacy.ParseOrder, so "a par - bur" or "A PAR -> BUR" match "A
//     PAR - BUR".
//  2. if that gives no order: every possible order written in the
//     public reply (as a whole phrase, not inside a longer order such as
//     "A PAR - BUR" inside "A MAR S A PAR - BUR") is taken.
//
// Unlike the reference's step 2, a location never gets two orders: the
// first one (in the JSON list, or in the text) counts and the others are
// dropped. Units with no order hold (or, in a retreats phase, are
// disbanded), as in the reference.
func ParseOrders(m *diplomacy.Map, reply string, possible map[diplomacy.Loc][]diplomacy.Order) OrderChoice {
	text := Public(reply)
	valid := map[string]diplomacy.Loc{}
	for loc, os := range possible {
		for _, o := range os {
			valid[o.String()] = loc
		}
	}
	var ch OrderChoice
	taken := map[diplomacy.Loc]string{}
	take := func(s string) {
		loc, ok := valid[s]
		if !ok {
			ch.Dropped = append(ch.Dropped, diplomacy.Rejection{Text: clip(s, 128), Reason: "not a possible order"})
			return
		}
		if s == "WAIVE" { // a waived build is no location's order
			ch.Orders = append(ch.Orders, s)
			return
		}
		if prev, dup := taken[loc]; dup {
			if prev != s {
				ch.Dropped = append(ch.Dropped, diplomacy.Rejection{Text: s, Reason: fmt.Sprintf("a second order for %s (kept %q)", loc, prev)})
			}
			return
		}
		taken[loc] = s
		ch.Orders = append(ch.Orders, s)
	}
	if obj, ok := ordersObject(text); ok {
		var v struct {
			Orders []any `json:"orders"`
		}
		if json.Unmarshal([]byte(obj), &v) == nil {
			for i, e := range v.Orders {
				if i >= diplomacy.MaxSubmitOrders {
					break
				}
				s, ok := e.(string)
				if !ok {
					continue
				}
				s = strings.TrimSpace(s)
				if o, err := diplomacy.ParseOrder(m, s); err == nil {
					s = o.String()
				}
				take(s)
			}
		}
	}
	if len(ch.Orders) > 0 {
		return ch
	}
	ch.Fallback = true
	for _, h := range phraseHits(text, valid) {
		take(h)
	}
	if len(ch.Orders) == 0 {
		ch.Fallback = false
	}
	return ch
}

// ordersObject returns the span from the first '{' to the last '}' when
// it holds "orders".
func ordersObject(s string) (string, bool) {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i || !strings.Contains(s[i:j], `"orders"`) {
		return "", false
	}
	return s[i : j+1], true
}

// phraseHits returns the valid orders written in text as whole phrases
// (not preceded or followed by a letter, digit or '/'), leaving out a
// hit inside a longer hit, in the order they appear.
func phraseHits(text string, valid map[string]diplomacy.Loc) []string {
	type hit struct {
		start, end int
		s          string
	}
	var hits []hit
	for s := range valid {
		for off := 0; off < len(text); {
			i := strings.Index(text[off:], s)
			if i < 0 {
				break
			}
			i += off
			end := i + len(s)
			if (i == 0 || !wordByte(text[i-1])) && (end == len(text) || !wordByte(text[end])) {
				hits = append(hits, hit{i, end, s})
			}
			off = i + 1
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var out []string
	maxEnd := -1
	for _, h := range hits {
		if h.end <= maxEnd {
			continue // inside a longer (or equal, earlier) hit
		}
		out = append(out, h.s)
		maxEnd = max(maxEnd, h.end)
	}
	return out
}

func wordByte(c byte) bool {
	return c == '/' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// clip cuts s at n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
