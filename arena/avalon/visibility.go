package avalon

// Sighting is one thing a seat knows at the start of the game about another
// seat.
type Sighting struct {
	// Seat is the seat seen.
	Seat int `json:"seat"`
	// As is what the seat is seen as: SeenEvil, or SeenMerlinOrMorgana for
	// Percival.
	As Seen `json:"as"`
}

// Seen is what a sighting reveals.
type Seen string

// What a sighting can reveal.
const (
	// SeenEvil: the seat is on the evil side.
	SeenEvil Seen = "evil"
	// SeenMerlinOrMorgana: Percival's sighting; the seat is Merlin or
	// Morgana, Percival is not told which.
	SeenMerlinOrMorgana Seen = "merlin_or_morgana"
)

// Knowledge returns what the player in seat knows at the start, in seat
// order, given every seat's role:
//
//   - Merlin sees every evil player except Mordred (Oberon included);
//   - Percival sees Merlin and Morgana, as SeenMerlinOrMorgana;
//   - an evil player other than Oberon sees the other evil players except
//     Oberon;
//   - Oberon, Servants and everyone else see nothing.
//
// With the default cast (no optional roles) this is the reference's rule:
// Merlin and the evil players know every evil seat, the others know
// nothing. A seat never sees itself.
func Knowledge(roles []Role, seat int) []Sighting {
	if seat < 0 || seat >= len(roles) {
		return nil
	}
	me := roles[seat]
	var out []Sighting
	for j, r := range roles {
		if j == seat {
			continue
		}
		switch {
		case me == Merlin:
			if r.Side() == Evil && r != Mordred {
				out = append(out, Sighting{j, SeenEvil})
			}
		case me == Percival:
			if r == Merlin || r == Morgana {
				out = append(out, Sighting{j, SeenMerlinOrMorgana})
			}
		case me.Side() == Evil && me != Oberon:
			if r.Side() == Evil && r != Oberon {
				out = append(out, Sighting{j, SeenEvil})
			}
		}
	}
	return out
}
