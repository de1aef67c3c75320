package arena

import "math"

// Defaults of the Elo parameters (the reference's).
const (
	DefaultInitialElo = 1500
	DefaultK          = 32
)

// Expected is the Elo expected score of a player rated ra against one rated
// rb: 1/(1+10^((rb-ra)/400)).
func Expected(ra, rb float64) float64 {
	return 1 / (1 + math.Pow(10, (rb-ra)/400))
}

// RatedSeat is one seat of a finished match, for EloDeltas.
type RatedSeat struct {
	// Model is the entrant that held the seat.
	Model string
	// Score is the seat's score (see SeatResult).
	Score float64
}

// EloDeltas returns the rating change of every model in one match of
// len(seats) seats.
//
// Every pair of seats held by different models and with different scores
// is one Elo game, won by the higher score: both ratings move by
// k/(len(seats)-1) · (s − E), E from the ratings before the match. The
// K-factor is shared out over a seat's len(seats)-1 opponents, so that a
// two-seat match is classic Elo with factor k (the reference's
// calculate_elo) and a seat's change in a many-seat match stays within k.
// A model's change is the sum over all pairs its seats are in: a model
// holding several seats is counted for each (the reference kept only a
// model's last seat), and pairs of its own seats are skipped.
//
// Ties: a pair with equal scores is not rated. In team games such as
// Avalon teammates always tie, which says nothing about their relative
// skill; rating it as a draw would pull teammates' ratings together for
// no reason, and the reference instead made it a win or a loss by list
// order (§1.9 item 9). All changes use the pre-match ratings, so the
// result does not depend on model order. Models missing from ratings start
// at initial.
func EloDeltas(ratings map[string]float64, seats []RatedSeat, k, initial float64) map[string]float64 {
	out := make(map[string]float64)
	rating := func(m string) float64 {
		if r, ok := ratings[m]; ok {
			return r
		}
		return initial
	}
	for _, s := range seats {
		out[s.Model] += 0
	}
	if len(seats) < 2 {
		return out
	}
	factor := k / float64(len(seats)-1)
	for i := range seats {
		for j := i + 1; j < len(seats); j++ {
			a, b := seats[i], seats[j]
			if a.Model == b.Model || a.Score == b.Score {
				continue
			}
			s := 0.0
			if a.Score > b.Score {
				s = 1
			}
			d := factor * (s - Expected(rating(a.Model), rating(b.Model)))
			out[a.Model] += d
			out[b.Model] -= d
		}
	}
	return out
}
