package web

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver/arena/avalon"
)

func TestParseClientMessage(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"type":"answer","id":1,"team":[0,1]}`, true},
		{`{"type":"answer","id":3,"vote":false}`, true},
		{`{"type":"answer","id":3,"target":4}`, true},
		{`{"type":"answer","id":3,"text":""}`, true},
		{`{"type":"answer","id":0,"vote":true}`, false},
		{`{"type":"answer","id":-1,"vote":true}`, false},
		{`{"type":"answer","id":1}`, false},
		{`{"type":"answer","id":1,"vote":true,"target":1}`, false},
		{`{"type":"answer","id":1,"team":[` + strings.Repeat("1,", 20) + `1]}`, false},
		{`{"type":"answer","id":1,"text":"` + strings.Repeat("x", MaxSpeechBytes+1) + `"}`, false},
		{`{"type":"answer","id":1,"text":"\udc00"}`, true}, // JSON decodes a lone surrogate to U+FFFD
		{`{"type":"ping"}`, false},
		{`{"type":"answer","id":1,"vote":true}{}`, false},
		{`[1]`, false},
		{``, false},
		{`{"type":"answer","id":1e99,"vote":true}`, false},
	} {
		_, err := ParseClientMessage([]byte(tc.in), DefaultMaxMessageBytes)
		if (err == nil) != tc.ok {
			t.Errorf("%.80s: err %v, want ok=%v", tc.in, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadMessage) {
			t.Errorf("%.80s: %v does not wrap ErrBadMessage", tc.in, err)
		}
	}
	if _, err := ParseClientMessage([]byte(`{"type":"answer","id":1,"vote":true}`), 10); !errors.Is(err, ErrBadMessage) {
		t.Errorf("over the byte limit: %v", err)
	}
}

func TestAnswerText(t *testing.T) {
	yes, no, two, self := true, false, 2, 1
	speech := "hello"
	team := avalon.Question{Action: avalon.ActionTeam, Seat: 1, Players: 5, TeamSize: 2}
	vote := avalon.Question{Action: avalon.ActionTeamVote, Seat: 1, Players: 5}
	quest := avalon.Question{Action: avalon.ActionQuestVote, Seat: 1, Players: 5}
	kill := avalon.Question{Action: avalon.ActionAssassinate, Seat: 1, Players: 5}
	talk := avalon.Question{Action: avalon.ActionDiscuss, Seat: 1, Players: 5}
	for _, tc := range []struct {
		q    avalon.Question
		m    ClientMessage
		want string // "" = refused
	}{
		{team, ClientMessage{Team: []int{3, 0}}, "[3, 0]"},
		{team, ClientMessage{Team: []int{3}}, ""},
		{team, ClientMessage{Team: []int{3, 3}}, ""},
		{team, ClientMessage{Team: []int{3, 5}}, ""},
		{team, ClientMessage{Vote: &yes}, ""},
		{vote, ClientMessage{Vote: &yes}, "Yes"},
		{quest, ClientMessage{Vote: &no}, "No"},
		{vote, ClientMessage{Text: &speech}, ""},
		{kill, ClientMessage{Target: &two}, "Player 2"},
		{kill, ClientMessage{Target: &self}, ""},
		{talk, ClientMessage{Text: &speech}, "hello"},
		{talk, ClientMessage{Team: []int{0, 1}}, ""},
	} {
		got, err := answerText(tc.q, tc.m)
		if got != tc.want || (tc.want == "") != errors.Is(err, ErrBadAnswer) {
			t.Errorf("%s %+v: %q %v, want %q", tc.q.Action, tc.m, got, err, tc.want)
		}
		// What the server writes is read back as the same action by the
		// game's own parsers.
		if tc.want != "" {
			switch tc.q.Action {
			case avalon.ActionTeam:
				if _, err := avalon.ParseTeam(got, tc.q.TeamSize, tc.q.Players); err != nil {
					t.Errorf("ParseTeam(%q): %v", got, err)
				}
			case avalon.ActionTeamVote, avalon.ActionQuestVote:
				if v, err := avalon.ParseVote(got); err != nil || v != *tc.m.Vote {
					t.Errorf("ParseVote(%q) = %v %v", got, v, err)
				}
			case avalon.ActionAssassinate:
				if v, err := avalon.ParseTarget(got, tc.q.Players, tc.q.Seat); err != nil || v != *tc.m.Target {
					t.Errorf("ParseTarget(%q) = %v %v", got, v, err)
				}
			}
		}
	}
}

// FuzzParseClientMessage: any bytes are refused with ErrBadMessage or give
// a message within the documented bounds; a team answer that fits a
// question is always read back by avalon.ParseTeam.
func FuzzParseClientMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"answer","id":1,"team":[0,1]}`,
		`{"type":"answer","id":2,"vote":true}`,
		`{"type":"answer","id":3,"target":4}`,
		`{"type":"answer","id":4,"text":"I trust Player 3 <think>x</think>"}`,
		`{"type":"answer","id":1,"team":[0,1],"team":[2]}`,
		`{"type":"answer","id":1,"text":null}`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseClientMessage(b, DefaultMaxMessageBytes)
		if err != nil {
			if !errors.Is(err, ErrBadMessage) {
				t.Fatalf("error %v does not wrap ErrBadMessage", err)
			}
			return
		}
		if m.Type != TypeAnswer || m.ID <= 0 || len(m.Team) > maxTeam {
			t.Fatalf("accepted %+v", m)
		}
		if m.Text != nil && (len(*m.Text) > MaxSpeechBytes || !utf8.ValidString(*m.Text)) {
			t.Fatalf("accepted text of %d bytes", len(*m.Text))
		}
		q := avalon.Question{Action: avalon.ActionTeam, Seat: 0, Players: 10, TeamSize: len(m.Team)}
		if text, err := answerText(q, m); err == nil && len(m.Team) > 0 {
			if _, err := avalon.ParseTeam(text, len(m.Team), 10); err != nil {
				t.Fatalf("team %v written as %q is not read back: %v", m.Team, text, err)
			}
		}
	})
}
