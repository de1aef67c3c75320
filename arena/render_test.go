package arena

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	s := []Standing{
		{ModelStats: ModelStats{Name: "qwen-plus", Elo: 1531.26, Games: 10, Wins: 6, Roles: map[string]RoleStats{"Merlin": {2, 2}, "Servant": {5, 3}, "Assassin": {3, 1}}}},
		{ModelStats: ModelStats{Name: "a-very-long-model-name-that-goes-on-and-on", Elo: 1468.74, Games: 7, Wins: 2, Roles: map[string]RoleStats{"Servant": {7, 2}}}},
		{ModelStats: ModelStats{Name: "new", Elo: 1500}},
	}
	Rank(s)
	var b strings.Builder
	if err := Render(&b, s, RenderOptions{Roles: []string{"Merlin", "Servant", "Assassin", "Minion"}}); err != nil {
		t.Fatal(err)
	}
	want := `#  Model                             Elo  Games  Wins  Win%  Merlin  Servant  Assassin  Minion   Avg
----------------------------------------------------------------------------------------------------
1  qwen-plus                      1531.3     10     6  60.0   100.0     60.0      33.3       -  64.4
2  new*                           1500.0      0     0     -       -        -         -       -     -
3  a-very-long-model-name-that…*  1468.7      7     2  28.6       -     28.6         -       -  28.6
----------------------------------------------------------------------------------------------------
   Average                                   17     8  47.1   100.0     41.7      33.3       -
Games per model: min 0, max 10, balance 0.000 (uneven: * marks models under 80% of the most games)
`
	if got := b.String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenderEmpty(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, nil, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "#  Model") {
		t.Fatalf("empty table %q", b.String())
	}
}
