package track

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzReadEvents: any input decodes to events or fails with an error
// wrapping ErrCorrupt (a record cut short ends the events quietly), and
// the summaries it decodes encode again to the same steps and scalars.
func FuzzReadEvents(f *testing.F) {
	var good []byte
	good = appendRecord(good, []byte{0x1a, 0x0d, 'b', 'r', 'a', 'i', 'n', '.', 'E', 'v', 'e', 'n', 't', ':', '2'})
	good = appendRecord(good, appendSummaryEvent(nil, time.Unix(1700000000, 0), 3, []Scalar{{"a", 1}, {"b/c", -0.5}}))
	f.Add(good)
	f.Add([]byte{})
	f.Add(appendRecord(nil, []byte{0xff, 0xff}))
	f.Add(appendRecord(nil, []byte{0x2a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 'x'}))
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := ReadEvents(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		var again []byte
		var want []Event
		for _, e := range evs {
			if len(e.Scalars) > 0 {
				again = appendRecord(again, appendSummaryEvent(nil, e.WallTime, e.Step, e.Scalars))
				want = append(want, e)
			}
		}
		got, err := ReadEvents(bytes.NewReader(again))
		if err != nil || len(got) != len(want) {
			t.Fatalf("re-encoded summaries: %d events, %v; want %d", len(got), err, len(want))
		}
		for i := range want {
			if got[i].Step != want[i].Step || len(got[i].Scalars) != len(want[i].Scalars) {
				t.Fatalf("event %+v became %+v", want[i], got[i])
			}
			for j, s := range want[i].Scalars {
				if g := got[i].Scalars[j]; g.Tag != s.Tag || !sameFloat32(g.Value, s.Value) {
					t.Fatalf("scalar %+v became %+v", s, g)
				}
			}
		}
	})
}
