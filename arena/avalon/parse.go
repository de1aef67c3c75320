package avalon

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxParseBytes bounds the text the parsers read; a longer reply is cut (at
// a rune boundary) before parsing, so a huge reply costs bounded time.
const MaxParseBytes = 16 << 10

var (
	thinkRE = regexp.MustCompile(`(?is)<think>.*?</think>`)
	// An unclosed <think> hides everything after it.
	openThinkRE  = regexp.MustCompile(`(?is)<think>.*$`)
	closeThinkRE = regexp.MustCompile(`(?i)</think>`)
	agentTagRE   = regexp.MustCompile(`(?i)</?agent:[^>]{0,64}>`)
)

// Public returns the part of a reply other players may see: every
// <think>…</think> span removed (and anything after an unclosed <think>),
// history tags (<agent:…>) removed so that a player cannot forge another's
// words, the result trimmed and cut to MaxParseBytes.
func Public(reply string) string {
	s := truncate(reply, MaxParseBytes)
	s = thinkRE.ReplaceAllString(s, "")
	s = openThinkRE.ReplaceAllString(s, "")
	s = closeThinkRE.ReplaceAllString(s, "")
	// Removing a tag can join the pieces of another ("<agen<agent:x>t:y>"):
	// repeat, and neutralise what a few passes leave.
	for pass := 0; pass < 8 && agentTagRE.MatchString(s); pass++ {
		s = agentTagRE.ReplaceAllString(s, "")
	}
	s = agentTagRE.ReplaceAllStringFunc(s, func(t string) string { return "(" + t[1:len(t)-1] + ")" })
	return strings.TrimSpace(s)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// bracketRE finds bracketed lists; the contents are checked separately.
var bracketRE = regexp.MustCompile(`\[([^\[\]]{0,256})\]`)

// idItemRE is one list element: a seat number, optionally written
// "Player 3", "player3", "P3" or "#3".
var idItemRE = regexp.MustCompile(`^(?i)(?:player\s*|p\s*|#)?(\d{1,3})$`)

// parseIDList reads a comma/space/"and"-separated list of seat ids, or
// reports false when any element is something else.
func parseIDList(s string) ([]int, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, false
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '，' })
	var out []int
	for _, f := range fields {
		f = strings.TrimSpace(f)
		for _, part := range splitAnd(f) {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			m := idItemRE.FindStringSubmatch(part)
			if m == nil {
				// "Player 1 Player 2" without commas: split on spaces.
				sub := strings.Fields(part)
				if len(sub) < 2 {
					return nil, false
				}
				ids, ok := parseSpaced(sub)
				if !ok {
					return nil, false
				}
				out = append(out, ids...)
				continue
			}
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
	}
	return out, len(out) > 0
}

func splitAnd(s string) []string {
	var out []string
	start := 0
	for i := 0; i+5 <= len(s); i++ {
		if s[i] == ' ' && s[i+4] == ' ' && asciiFold(s[i+1:i+4]) == "and" {
			out = append(out, s[start:i])
			start = i + 5
			i += 4
		}
	}
	return append(out, s[start:])
}

func asciiFold(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func parseSpaced(words []string) ([]int, bool) {
	var out []int
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.EqualFold(w, "player") && i+1 < len(words) {
			w = words[i+1]
			i++
		}
		m := idItemRE.FindStringSubmatch(w)
		if m == nil {
			return nil, false
		}
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out, true
}

// ParseTeam reads a proposed team of exactly size distinct seats in
// 0..players-1 from a leader's reply. Only the public part of the reply
// (see Public) is read, so thinking cannot be mistaken for the answer.
//
// Accepted: bracketed lists ("I pick [0, 3]", "[Player 1, Player 4]"), or a
// reply that is nothing but a list ("1, 3 and 4"). Every bracketed list
// whose elements are all seat ids is a candidate; candidates that are not a
// legal team (wrong size, a duplicate, a seat out of range) are ignored; if
// the legal ones name different teams the reply is ambiguous. The result is
// sorted. Integers in prose ("Mission 1", "Player 7 is suspicious") are
// never taken, unlike the reference, which took the first integers
// anywhere in the text. Failure is ErrUnparsable with the reason.
func ParseTeam(reply string, size, players int) ([]int, error) {
	text := Public(reply)
	var lists [][]int
	for _, m := range bracketRE.FindAllStringSubmatch(text, 64) {
		if ids, ok := parseIDList(m[1]); ok {
			lists = append(lists, ids)
		}
	}
	if len(lists) == 0 {
		// A bare list as the whole reply, perhaps with a trailing period.
		bare := strings.TrimRight(strings.TrimSpace(text), ".!")
		bare = strings.TrimPrefix(strings.TrimPrefix(bare, "Team:"), "team:")
		if ids, ok := parseIDList(bare); ok {
			lists = append(lists, ids)
		}
	}
	if len(lists) == 0 {
		return nil, fmt.Errorf("%w: no list of player ids like [0, 1] found", ErrUnparsable)
	}
	var chosen []int
	var why string
	for _, ids := range lists {
		team, err := legalTeam(ids, size, players)
		if err != nil {
			why = err.Error()
			continue
		}
		if chosen != nil && !slices.Equal(chosen, team) {
			return nil, fmt.Errorf("%w: several different teams named (%v and %v)", ErrUnparsable, chosen, team)
		}
		chosen = team
	}
	if chosen == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnparsable, why)
	}
	return chosen, nil
}

func legalTeam(ids []int, size, players int) ([]int, error) {
	if len(ids) != size {
		return nil, fmt.Errorf("the team must have exactly %d players, the list has %d", size, len(ids))
	}
	seen := make(map[int]bool, len(ids))
	team := make([]int, 0, len(ids))
	for _, id := range ids {
		if id < 0 || id >= players {
			return nil, fmt.Errorf("player %d does not exist (ids are 0 to %d)", id, players-1)
		}
		if seen[id] {
			return nil, fmt.Errorf("player %d is listed twice", id)
		}
		seen[id] = true
		team = append(team, id)
	}
	sortInts(team)
	return team, nil
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// Vote words. Matching is by whole word, lower case.
var (
	yesWords = map[string]bool{
		"yes": true, "approve": true, "approved": true, "approves": true, "accept": true, "accepted": true,
		"agree": true, "support": true, "pass": true, "passed": true, "succeed": true, "success": true,
		"y": true, "aye": true, "yea": true, "yeah": true, "ok": true, "okay": true,
	}
	noWords = map[string]bool{
		"no": true, "nope": true, "nay": true, "n": true, "reject": true, "rejected": true, "rejects": true,
		"disapprove": true, "decline": true, "deny": true, "oppose": true, "against": true, "veto": true,
		"fail": true, "failed": true, "failure": true, "sabotage": true,
	}
	negators = map[string]bool{
		"not": true, "never": true, "don't": true, "dont": true, "doesn't": true, "won't": true,
		"wont": true, "cannot": true, "can't": true, "cant": true, "shouldn't": true, "wouldn't": true,
		"isn't": true, "refuse": true, "without": true,
	}
	// Words after which the next polar word is the stated answer.
	markers = map[string]bool{"vote": true, "answer": true, "decision": true, "choice": true, "verdict": true}
)

// clauseBreak is the token words puts where a clause ends, so that a
// negation never reaches across sentences ("Not sure. Yes.").
const clauseBreak = "|"

// words splits lower-cased text into words of letters, digits and
// apostrophes (curly apostrophes folded to '), with clauseBreak tokens at
// . , ; ! ? and line breaks.
func words(s string) []string {
	s = strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			cur.WriteRune(r)
		case strings.ContainsRune(".,;!?\n", r):
			flush()
			if len(out) > 0 && out[len(out)-1] != clauseBreak {
				out = append(out, clauseBreak)
			}
		default:
			flush()
		}
	}
	flush()
	return out
}

// polarity of word i in ws: +1 yes, -1 no, 0 neither; a negator up to four
// words before, in the same clause, flips it ("I do not approve" is a no,
// "I don't think we should reject" a yes). A "no" before "doubt", "way",
// … is not a vote.
func polarity(ws []string, i int) int {
	w := ws[i]
	p := 0
	switch {
	case yesWords[w]:
		p = 1
	case noWords[w]:
		p = -1
	default:
		return 0
	}
	if w == "no" && i+1 < len(ws) && (ws[i+1] == "doubt" || ws[i+1] == "one" || ws[i+1] == "way" || ws[i+1] == "matter" || ws[i+1] == "idea") {
		return 0
	}
	for j := i - 1; j >= 0 && j >= i-4 && ws[j] != clauseBreak; j-- {
		if negators[ws[j]] {
			return -p
		}
	}
	return p
}

// ParseVote reads a yes/no decision (team vote: approve or reject; quest
// vote: success or fail) from the public part of a reply (see Public).
//
// The rules, in order:
//  1. a polar word after an answer marker ("Vote: no", "my answer is
//     approve", "final decision: reject"), the last such one winning;
//  2. else the first word, when it is polar ("Yes, because …");
//  3. else every polar word, negation applied ("I do not approve this
//     team" is a reject, "I won't fail it" a success): they must agree.
//
// Words match whole ("eyes" is not "yes"); conflicting or missing
// decisions are ErrUnparsable. Unlike the reference there is no default:
// the game re-asks and then applies its documented fallback.
func ParseVote(reply string) (bool, error) {
	ws := words(Public(reply))
	if len(ws) == 0 || (len(ws) == 1 && ws[0] == clauseBreak) {
		return false, fmt.Errorf("%w: empty reply", ErrUnparsable)
	}
	// Rule 1: after a marker.
	found, last := false, false
	for i := 0; i < len(ws); i++ {
		if !markers[ws[i]] {
			continue
		}
		for j := i + 1; j < len(ws) && j <= i+4; j++ {
			if p := polarity(ws, j); p != 0 {
				found, last = true, p > 0
				break
			}
		}
	}
	if found {
		return last, nil
	}
	// Rule 2: a leading polar word.
	first := 0
	for first < len(ws)-1 && ws[first] == clauseBreak {
		first++
	}
	if p := polarity(ws, first); p != 0 {
		return p > 0, nil
	}
	// Rule 3: all polar words agree.
	var yes, no int
	for i := range ws {
		switch polarity(ws, i) {
		case 1:
			yes++
		case -1:
			no++
		}
	}
	switch {
	case yes > 0 && no == 0:
		return true, nil
	case no > 0 && yes == 0:
		return false, nil
	case yes > 0:
		return false, fmt.Errorf("%w: both yes and no in the reply", ErrUnparsable)
	}
	return false, fmt.Errorf("%w: no yes or no found", ErrUnparsable)
}

// targetMarkers are words after which a seat id names the target.
var targetMarkers = map[string]bool{
	"assassinate": true, "target": true, "choose": true, "chose": true, "pick": true,
	"kill": true, "select": true, "is": true, "answer": true,
}

// ParseTarget reads the Assassin's target, a seat in 0..players-1 other
// than the assassin's own, from the public part of a reply (see Public).
//
// Seat mentions are "Player 3", "P3", "[3]", "#3" or a bare number. The
// rules, in order: the reply is only a mention ("3", "Player 3."); else the
// last mention right after a marker ("I choose Player 2", "target: 4",
// "assassinate 1"); else the only seat mentioned, if exactly one distinct
// seat is. Anything else, and a target out of range or the assassin
// itself, is ErrUnparsable. The reference took the last integer anywhere,
// clamped, and 0 when there was none.
func ParseTarget(reply string, players, assassin int) (int, error) {
	ws := words(Public(reply))
	type mention struct{ seat, at int }
	var ms []mention
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if (w == "player" || w == "seat") && i+1 < len(ws) {
			if n, ok := atoiSmall(ws[i+1]); ok {
				ms = append(ms, mention{n, i})
				i++
				continue
			}
		}
		if len(w) > 1 && w[0] == 'p' {
			if n, ok := atoiSmall(w[1:]); ok {
				ms = append(ms, mention{n, i})
				continue
			}
		}
		if n, ok := atoiSmall(w); ok {
			ms = append(ms, mention{n, i})
		}
	}
	if len(ms) == 0 {
		return 0, fmt.Errorf("%w: no player id found", ErrUnparsable)
	}
	check := func(n int) (int, error) {
		if n < 0 || n >= players {
			return 0, fmt.Errorf("%w: player %d does not exist (ids are 0 to %d)", ErrUnparsable, n, players-1)
		}
		if n == assassin {
			return 0, fmt.Errorf("%w: the Assassin cannot target themself (player %d)", ErrUnparsable, n)
		}
		return n, nil
	}
	// Only a mention: "3", "player 3".
	if len(ms) == 1 && (len(ws) == 1 || (len(ws) == 2 && (ws[0] == "player" || ws[0] == "seat"))) {
		return check(ms[0].seat)
	}
	marked := -1
	for _, m := range ms {
		for j := max(0, m.at-3); j < m.at; j++ {
			if targetMarkers[ws[j]] {
				marked = m.seat
				break
			}
		}
	}
	if marked >= 0 {
		return check(marked)
	}
	first := ms[0].seat
	for _, m := range ms[1:] {
		if m.seat != first {
			return 0, fmt.Errorf("%w: several players named and none marked as the target", ErrUnparsable)
		}
	}
	return check(first)
}

func atoiSmall(s string) (int, bool) {
	if len(s) == 0 || len(s) > 3 {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(s)
	return n, true
}
