package web

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
)

func TestParseDipClientMessage(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"type":"orders","id":1,"orders":["A PAR - BUR"]}`, true},
		{`{"type":"orders","id":1,"orders":[]}`, true},
		{`{"type":"orders","id":1,"power":"FRANCE","orders":[],"messages":null}`, true},
		{`{"type":"messages","id":2,"messages":[{"recipient":"GLOBAL","content":"hi"}]}`, true},
		{`{"type":"messages","id":2,"messages":[]}`, true},
		{`{"type":"orders","id":1}`, false},
		{`{"type":"messages","id":1}`, false},
		{`{"type":"orders","id":1,"orders":[],"messages":[]}`, false},
		{`{"type":"orders","id":0,"orders":[]}`, false},
		{`{"type":"orders","id":1,"orders":["` + strings.Repeat("x", diplomacy.MaxOrderBytes+1) + `"]}`, false},
		{`{"type":"orders","id":1,"orders":[` + strings.Repeat(`"A PAR H",`, diplomacy.MaxSubmitOrders) + `"A PAR H"]}`, false},
		{`{"type":"messages","id":1,"messages":[` + strings.Repeat(`{"recipient":"GLOBAL","content":"x"},`, dipgame.MaxMessagesPerReply) + `{"recipient":"GLOBAL","content":"x"}]}`, false},
		{`{"type":"messages","id":1,"messages":[{"recipient":"GLOBAL","content":"` + strings.Repeat("x", dipgame.MaxMessageBytes+1) + `"}]}`, false},
		{`{"type":"messages","id":1,"messages":[{"to":"GLOBAL"}]}`, false},
		{`{"type":"answer","id":1,"vote":true}`, false},
		{`{"type":"orders","id":1,"orders":[]}{}`, false},
		{`[]`, false},
		{``, false},
	} {
		_, err := ParseDipClientMessage([]byte(tc.in), 1<<20)
		if (err == nil) != tc.ok {
			t.Errorf("%.80s: err %v, want ok=%v", tc.in, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadMessage) {
			t.Errorf("%.80s: %v does not wrap ErrBadMessage", tc.in, err)
		}
	}
	if _, err := ParseDipClientMessage([]byte(`{"type":"orders","id":1,"orders":[]}`), 10); !errors.Is(err, ErrBadMessage) {
		t.Errorf("over the byte limit: %v", err)
	}
}

// franceQuestion is FRANCE's orders question of S1901M (or its
// negotiation question).
func franceQuestion(negotiation bool) *DipQuestion {
	g := diplomacy.NewGame(diplomacy.Config{})
	poss := g.PossibleOrders()
	q := dipgame.Question{Negotiation: negotiation, Power: diplomacy.France, Phase: g.Phase(), Units: g.Units(),
		Centers: g.Position().Centers, Possible: map[diplomacy.Loc][]diplomacy.Order{}}
	if !negotiation {
		for _, l := range g.OrderableLocations(diplomacy.France) {
			q.Possible[l] = poss[l]
		}
	}
	return newDipQuestion(1, q, nil)
}

// buildQuestion is a winter question in which FRANCE may build one unit.
func buildQuestion() *DipQuestion {
	m := diplomacy.Standard()
	w, _ := diplomacy.ParsePhase("W1901A")
	centers := map[diplomacy.Loc]diplomacy.Power{"PAR": diplomacy.France, "BRE": diplomacy.France, "MAR": diplomacy.France, "SPA": diplomacy.France}
	units := []diplomacy.Unit{{Type: diplomacy.Army, Power: diplomacy.France, Loc: "SPA"}, {Type: diplomacy.Army, Power: diplomacy.France, Loc: "BUR"}, {Type: diplomacy.Fleet, Power: diplomacy.France, Loc: "MAO"}}
	q := dipgame.Question{Power: diplomacy.France, Phase: w, Units: units, Centers: centers, Possible: map[diplomacy.Loc][]diplomacy.Order{}}
	for _, l := range m.BuildSites(diplomacy.France, units, centers) {
		for _, s := range []string{"A " + string(l) + " B", "F " + string(l) + " B", "WAIVE"} {
			if o, err := diplomacy.ParseOrder(m, s); err == nil && (o.Type == diplomacy.Waive || m.CanHold(o.Unit, l)) {
				q.Possible[l] = append(q.Possible[l], o)
			}
		}
	}
	return newDipQuestion(1, q, nil)
}

func TestDipAnswerText(t *testing.T) {
	orders, talk, build := franceQuestion(false), franceQuestion(true), buildQuestion()
	if build.Adjustment != 1 || len(build.Possible) != 3 || len(orders.Possible) != 3 || len(talk.Recipients) != 7 {
		t.Fatalf("questions: build %+v, orders %+v, talk %+v", build, orders.Possible, talk.Recipients)
	}
	for _, tc := range []struct {
		name string
		q    *DipQuestion
		m    DipClientMessage
		want string // "" = refused
	}{
		{"orders", orders, DipClientMessage{Type: TypeOrders, Orders: []string{"a par - bur", "F BRE -> MAO", "A MAR H"}},
			`PARSABLE OUTPUT: {"orders":["A PAR - BUR","F BRE - MAO","A MAR H"]}`},
		{"no orders", orders, DipClientMessage{Type: TypeOrders, Orders: []string{}}, `PARSABLE OUTPUT: {"orders":[]}`},
		{"the power named", orders, DipClientMessage{Type: TypeOrders, Power: "france", Orders: []string{"A PAR H"}}, `PARSABLE OUTPUT: {"orders":["A PAR H"]}`},
		{"another power", orders, DipClientMessage{Type: TypeOrders, Power: "ITALY", Orders: []string{"A PAR H"}}, ""},
		{"an unknown power", orders, DipClientMessage{Type: TypeOrders, Power: "PRUSSIA", Orders: []string{"A PAR H"}}, ""},
		{"another's unit", orders, DipClientMessage{Type: TypeOrders, Orders: []string{"A MUN - BUR"}}, ""},
		{"not adjacent", orders, DipClientMessage{Type: TypeOrders, Orders: []string{"A PAR - MUN"}}, ""},
		{"not an order", orders, DipClientMessage{Type: TypeOrders, Orders: []string{"attack!"}}, ""},
		{"two for a unit", orders, DipClientMessage{Type: TypeOrders, Orders: []string{"A PAR H", "A PAR - PIC"}}, ""},
		{"messages to orders", orders, DipClientMessage{Type: TypeMessages, Messages: []DipOutMessage{}}, ""},
		{"a build", build, DipClientMessage{Type: TypeOrders, Orders: []string{"F BRE B"}}, `PARSABLE OUTPUT: {"orders":["F BRE B"]}`},
		{"a waive", build, DipClientMessage{Type: TypeOrders, Orders: []string{"WAIVE"}}, `PARSABLE OUTPUT: {"orders":["WAIVE"]}`},
		{"two builds", build, DipClientMessage{Type: TypeOrders, Orders: []string{"F BRE B", "A PAR B"}}, ""},
		{"build elsewhere", build, DipClientMessage{Type: TypeOrders, Orders: []string{"A MUN B"}}, ""},
		{"messages", talk, DipClientMessage{Type: TypeMessages, Messages: []DipOutMessage{{Recipient: "Germany", Content: " hold BUR <think>x</think> & more "}, {Recipient: "global", Content: "peace"}}},
			`[{"message_type":"private","recipient":"GERMANY","content":"hold BUR \u003cthink\u003ex\u003c/think\u003e \u0026 more"},{"message_type":"global","content":"peace"}]`},
		{"no messages", talk, DipClientMessage{Type: TypeMessages, Messages: []DipOutMessage{}}, `[]`},
		{"to oneself", talk, DipClientMessage{Type: TypeMessages, Messages: []DipOutMessage{{Recipient: "FRANCE", Content: "x"}}}, ""},
		{"to nobody", talk, DipClientMessage{Type: TypeMessages, Messages: []DipOutMessage{{Recipient: "", Content: "x"}}}, ""},
		{"empty", talk, DipClientMessage{Type: TypeMessages, Messages: []DipOutMessage{{Recipient: "GLOBAL", Content: " \n "}}}, ""},
		{"orders to talk", talk, DipClientMessage{Type: TypeOrders, Orders: []string{}}, ""},
	} {
		got, err := dipAnswerText(tc.q, tc.m)
		if tc.want == "" {
			if err == nil || !errors.Is(err, ErrBadAnswer) {
				t.Errorf("%s: %q, %v; want refused with ErrBadAnswer", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	// The reply is read back as meant, tags and all.
	reply, _ := dipAnswerText(talk, DipClientMessage{Type: TypeMessages, Messages: []DipOutMessage{{Recipient: "ENGLAND", Content: "<think>not a thought</think>"}}})
	if got := dipgame.ParseNegotiation(reply, diplomacy.France); len(got) != 1 || got[0].Content != "<think>not a thought</think>" || got[0].Recipient != "ENGLAND" {
		t.Fatalf("read back %+v", got)
	}
}

func TestDipGameAnswerOutOfTurn(t *testing.T) {
	g := newDipGame(Config{})
	if err := g.answer(DipClientMessage{Type: TypeOrders, ID: 1, Orders: []string{}}); !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), "not your turn") {
		t.Fatalf("an answer with no question open: %v", err)
	}
}

// FuzzParseDipClientMessage: any bytes are refused with ErrBadMessage or
// give a message within the documented bounds; an answer that fits a
// question is read back by the game's parsers exactly as meant.
func FuzzParseDipClientMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"orders","id":1,"orders":["A PAR - BUR","f bre - mao"]}`,
		`{"type":"orders","id":1,"orders":["A MAR S A PAR - BUR","A PAR - BUR"]}`,
		`{"type":"messages","id":2,"messages":[{"recipient":"GERMANY","content":"hi <think>x</think>"}]}`,
		`{"type":"messages","id":2,"messages":[{"recipient":"GLOBAL","content":"]}\"orders\""}]}`,
		`{"type":"orders","id":1,"orders":["WAIVE","WAIVE"]}`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	orders, talk := franceQuestion(false), franceQuestion(true)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseDipClientMessage(b, DefaultMaxMessageBytes)
		if err != nil {
			if !errors.Is(err, ErrBadMessage) {
				t.Fatalf("error %v does not wrap ErrBadMessage", err)
			}
			return
		}
		if m.ID <= 0 || len(m.Orders) > diplomacy.MaxSubmitOrders || len(m.Messages) > dipgame.MaxMessagesPerReply {
			t.Fatalf("accepted %+v", m)
		}
		for _, o := range m.Messages {
			if len(o.Content) > dipgame.MaxMessageBytes || !utf8.ValidString(o.Content) {
				t.Fatalf("accepted content of %d bytes", len(o.Content))
			}
		}
		q := orders
		if m.Type == TypeMessages {
			q = talk
		}
		reply, err := dipAnswerText(q, m)
		if err != nil {
			if !errors.Is(err, ErrBadAnswer) {
				t.Fatalf("error %v does not wrap ErrBadAnswer", err)
			}
			return
		}
		if m.Type == TypeOrders {
			got := dipgame.ParseOrders(diplomacy.Standard(), reply, q.q.Possible)
			if len(got.Orders) != len(m.Orders) || len(got.Dropped) > 0 {
				t.Fatalf("orders %v written as %q read back as %+v", m.Orders, reply, got)
			}
			return
		}
		got := dipgame.ParseNegotiation(reply, diplomacy.France)
		if len(got) != len(m.Messages) {
			t.Fatalf("messages %+v written as %q read back as %+v", m.Messages, reply, got)
		}
		for i, g := range got {
			if g.Content != strings.TrimSpace(m.Messages[i].Content) || !slices.Contains(talk.Recipients, g.Recipient) {
				t.Fatalf("message %d read back as %+v", i, g)
			}
		}
	})
}
