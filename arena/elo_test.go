package arena

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestExpected(t *testing.T) {
	tests := []struct{ ra, rb, want float64 }{
		{1500, 1500, 0.5},
		{1600, 1400, 1 / (1 + math.Pow(10, -0.5))}, // 0.7597469266
		{1400, 1800, 1.0 / 11},                     // 400 points: 1/(1+10)
	}
	for _, tc := range tests {
		if got := Expected(tc.ra, tc.rb); !near(got, tc.want) {
			t.Errorf("Expected(%v, %v) = %v, want %v", tc.ra, tc.rb, got, tc.want)
		}
	}
	if !near(Expected(1600, 1400)+Expected(1400, 1600), 1) {
		t.Error("expected scores do not sum to 1")
	}
}

func TestEloDeltasHandComputed(t *testing.T) {
	tests := []struct {
		name    string
		ratings map[string]float64
		seats   []RatedSeat
		want    map[string]float64
	}{
		{
			// The reference's calculate_elo(1500, 1500, 1) = (1516, 1484).
			name:  "even pair",
			seats: []RatedSeat{{"A", 1}, {"B", 0}},
			want:  map[string]float64{"A": 16, "B": -16},
		},
		{
			// 1600 beats 1400: 32·(1 − 0.7597469266) = 7.6880983.
			name:    "favourite wins",
			ratings: map[string]float64{"A": 1600, "B": 1400},
			seats:   []RatedSeat{{"A", 1}, {"B", 0}},
			want:    map[string]float64{"A": 7.688098348, "B": -7.688098348},
		},
		{
			// Equal scores are not rated, whatever the ratings.
			name:    "tie not rated",
			ratings: map[string]float64{"A": 1600, "B": 1400},
			seats:   []RatedSeat{{"A", 1}, {"B", 1}},
			want:    map[string]float64{"A": 0, "B": 0},
		},
		{
			// Avalon-like: A and B win (good), C and D lose, all at 1500.
			// Factor 32/3 per pair; each winner beats two losers at
			// E = 0.5: 2 · 32/3 · 0.5 = 32/3; teammates are not rated.
			name:  "two teams",
			seats: []RatedSeat{{"A", 1}, {"B", 1}, {"C", 0}, {"D", 0}},
			want:  map[string]float64{"A": 32.0 / 3, "B": 32.0 / 3, "C": -32.0 / 3, "D": -32.0 / 3},
		},
		{
			// A holds two seats, one won and one lost, against B (lost) and
			// C (won); factor 32/3, so ±16/3 per decided pair at E = 0.5.
			// A1>B (A +16/3, B −16/3), A2<C (A −16/3, C +16/3), B<C (B
			// −16/3, C +16/3); A1=C and A2=B tie, A1/A2 is one model.
			name:  "model with two seats",
			seats: []RatedSeat{{"A", 1}, {"B", 0}, {"A", 0}, {"C", 1}},
			want:  map[string]float64{"A": 0, "B": -32.0 / 3, "C": 32.0 / 3},
		},
		{
			// Diplomacy-like continuous scores X 5/18, Y 3/18, Z 0; factor
			// 16, ±8 per pair: X +16, Y −8 +8 = 0, Z −16.
			name:  "ordered scores",
			seats: []RatedSeat{{"X", 5.0 / 18}, {"Y", 3.0 / 18}, {"Z", 0}},
			want:  map[string]float64{"X": 16, "Y": 0, "Z": -16},
		},
		{
			// 1400 upsets 1600 in a 3-seat match (C, 1500, loses to both):
			// factor 16. B>A: 16·(1 − E(1400,1600)) = 12.155950826367;
			// B>C: 16·(1 − E(1400,1500)) = 10.241039996846; A>C:
			// 16·(1 − E(1600,1500)) = 5.758960003154.
			name:    "upset",
			ratings: map[string]float64{"A": 1600, "B": 1400, "C": 1500},
			seats:   []RatedSeat{{"A", 0.5}, {"B", 1}, {"C", 0}},
			want:    map[string]float64{"A": 5.758960003154 - 12.155950826367, "B": 12.155950826367 + 10.241039996846, "C": -10.241039996846 - 5.758960003154},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EloDeltas(tc.ratings, tc.seats, 32, 1500)
			if len(got) != len(tc.want) {
				t.Fatalf("deltas %v, want %v", got, tc.want)
			}
			var sum float64
			for m, w := range tc.want {
				if !near(got[m], w) {
					t.Errorf("%s: %v, want %v", m, got[m], w)
				}
				sum += got[m]
			}
			if !near(sum, 0) {
				t.Errorf("deltas sum to %v", sum)
			}
		})
	}
}

func TestEloDeltasOrderIndependent(t *testing.T) {
	ratings := map[string]float64{"A": 1530, "B": 1470, "C": 1512}
	a := EloDeltas(ratings, []RatedSeat{{"A", 1}, {"B", 0}, {"C", 1}, {"B", 1}}, 32, 1500)
	b := EloDeltas(ratings, []RatedSeat{{"B", 1}, {"C", 1}, {"B", 0}, {"A", 1}}, 32, 1500)
	for m := range a {
		if !near(a[m], b[m]) {
			t.Errorf("%s: %v vs %v", m, a[m], b[m])
		}
	}
}
