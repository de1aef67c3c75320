package dipgame_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
)

func TestParseNegotiation(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		want        []dipgame.Message
	}{
		{"json", "```json\n[{\"message_type\": \"private\", \"recipient\": \"germany\", \"content\": \"Keep BUR empty [ok]?\"}, {\"message_type\": \"global\", \"content\": \"Peace.\"}]\n```",
			[]dipgame.Message{{"FRANCE", "GERMANY", "Keep BUR empty [ok]?"}, {"FRANCE", "GLOBAL", "Peace."}}},
		{"type inferred", `<think>[plan]</think>Here: [{"recipient": "ITALY", "content": "hi"}, {"content": "all"}, {"content": ""}]`,
			[]dipgame.Message{{"FRANCE", "ITALY", "hi"}, {"FRANCE", "GLOBAL", "all"}}},
		{"unknown recipient goes to all", `[{"message_type": "private", "recipient": "Narnia", "content": "x"}]`,
			[]dipgame.Message{{"FRANCE", "GLOBAL", "x"}}},
		{"private to self goes to all", `[{"message_type": "private", "recipient": "FRANCE", "content": "x"}]`,
			[]dipgame.Message{{"FRANCE", "GLOBAL", "x"}}},
		{"empty array is silence", `[]`, nil},
		{"lines fallback", "ENGLAND: stay out of the Channel\nsomething else\nTurkey: hello", []dipgame.Message{{"FRANCE", "ENGLAND", "stay out of the Channel"}, {"FRANCE", "TURKEY", "hello"}}},
		{"whole text fallback", "I want peace with everyone.", []dipgame.Message{{"FRANCE", "GLOBAL", "I want peace with everyone."}}},
		{"broken json falls back", `[{"content": "x"`, []dipgame.Message{{"FRANCE", "GLOBAL", `[{"content": "x"`}}},
		{"thinking only", "<think>secret</think>", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := dipgame.ParseNegotiation(tc.reply, diplomacy.France)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseNegotiationBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 20 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"content": "` + strings.Repeat("x", 3000) + `"}`)
	}
	b.WriteString("]")
	got := dipgame.ParseNegotiation(b.String(), diplomacy.France)
	if len(got) > dipgame.MaxMessagesPerReply {
		t.Errorf("%d messages", len(got))
	}
	for _, m := range got {
		if len(m.Content) > dipgame.MaxMessageBytes {
			t.Errorf("content of %d bytes", len(m.Content))
		}
	}
}

func possibleFor(g *diplomacy.Game, p diplomacy.Power) map[diplomacy.Loc][]diplomacy.Order {
	all := g.PossibleOrders()
	out := map[diplomacy.Loc][]diplomacy.Order{}
	for _, l := range g.OrderableLocations(p) {
		out[l] = all[l]
	}
	return out
}

func TestParseOrders(t *testing.T) {
	g := diplomacy.NewGame(diplomacy.Config{})
	poss := possibleFor(g, diplomacy.France)
	for _, tc := range []struct {
		name, reply string
		want        []string
		fallback    bool
		dropped     int
	}{
		{"json", `PARSABLE OUTPUT: {"orders": ["A PAR - BUR", "a mar s a par -> bur", "F BRE - MAO"]}`, []string{"A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO"}, false, 0},
		{"json drops illegal and second orders", `{"orders": ["A PAR - MUN", "A PAR - PIC", "A PAR H", 7, "F BRE - ENG"]}`, []string{"A PAR - PIC", "F BRE - ENG"}, false, 2},
		{"json of another power", `{"orders": ["A MUN - BUR"]}`, []string{"A PAR - BUR"}, true, 1},
		{"substring fallback one per unit", "<think>A PAR - GAS?</think>I will play A PAR - BUR, supported: A MAR S A PAR - BUR. Or maybe A PAR H. F BRE - MAO", []string{"A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO"}, true, 1},
		{"phrase boundaries", "A PAR - BURX and XA MAR H", nil, false, 0},
		{"nothing", "I hold everything.", nil, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "json of another power" {
				tc.reply += " A PAR - BUR"
			}
			ch := dipgame.ParseOrders(g.Map(), tc.reply, poss)
			if !slices.Equal(ch.Orders, tc.want) || ch.Fallback != tc.fallback || len(ch.Dropped) != tc.dropped {
				t.Errorf("got %+v, want %v fallback %v dropped %d", ch, tc.want, tc.fallback, tc.dropped)
			}
		})
	}
}

// checkOneOrderPerUnit fails when a choice gives a location two orders or
// holds an order that is not possible.
func checkOneOrderPerUnit(t *testing.T, ch dipgame.OrderChoice, poss map[diplomacy.Loc][]diplomacy.Order) {
	t.Helper()
	where := map[string]diplomacy.Loc{}
	for l, os := range poss {
		for _, o := range os {
			where[o.String()] = l
		}
	}
	seen := map[diplomacy.Loc]bool{}
	for _, s := range ch.Orders {
		l, ok := where[s]
		if !ok {
			t.Fatalf("%q is not a possible order", s)
		}
		if s == "WAIVE" {
			continue
		}
		if seen[l] {
			t.Fatalf("two orders for %s: %v", l, ch.Orders)
		}
		seen[l] = true
	}
}

func FuzzParseOrders(f *testing.F) {
	g := diplomacy.NewGame(diplomacy.Config{})
	poss := possibleFor(g, diplomacy.Russia)
	for _, s := range []string{
		`{"orders": ["F STP/SC - BOT", "A MOS - UKR", "A WAR H", "F SEV - BLA"]}`,
		"A MOS - UKR A MOS H A WAR S A MOS - UKR A WAR - GAL F STP/SC H",
		`{"orders": [1, null, {"x": 2}]}`, "<think>{\"orders\": [\"A MOS H\"]}</think>", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		ch := dipgame.ParseOrders(g.Map(), reply, poss)
		checkOneOrderPerUnit(t, ch, poss)
		if _, _, err := g.Submit(diplomacy.Russia, ch.Orders); err != nil {
			t.Fatal(err)
		}
		if len(g.Orders(diplomacy.Russia)) != len(ch.Orders) {
			t.Fatalf("the engine refused parsed orders %v", ch.Orders)
		}
	})
}

func FuzzParseNegotiation(f *testing.F) {
	for _, s := range []string{
		`[{"message_type": "private", "recipient": "GERMANY", "content": "hi"}]`,
		"```json\n[{\"content\": \"[\\\"x\\\"]\"}]\n```", "ENGLAND: hello\nFRANCE: me", "[", "]", `["a", 1, {}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		msgs := dipgame.ParseNegotiation(reply, diplomacy.Austria)
		if len(msgs) > dipgame.MaxMessagesPerReply {
			t.Fatalf("%d messages", len(msgs))
		}
		for _, m := range msgs {
			if m.Sender != "AUSTRIA" || m.Content == "" || len(m.Content) > dipgame.MaxMessageBytes {
				t.Fatalf("bad message %+v", m)
			}
			if m.Recipient != dipgame.Global {
				p, err := diplomacy.ParsePower(m.Recipient)
				if err != nil || p == diplomacy.Austria || p.String() != m.Recipient {
					t.Fatalf("bad recipient %+v", m)
				}
			}
			if strings.Contains(m.Content, "<agent:") {
				t.Fatalf("forged history tag in %q", m.Content)
			}
		}
	})
}
