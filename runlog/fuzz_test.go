package runlog

import (
	"bytes"
	"testing"
)

// FuzzDecodeMetrics checks that any input either fails with a LineError or
// decodes to records that the writer writes back and that decode again to
// the same records.
func FuzzDecodeMetrics(f *testing.F) {
	for _, seed := range []string{
		"",
		`{"step":0,"time":"2026-01-02T15:04:05Z"}` + "\n",
		`{"step":12,"time":"2026-01-02T15:04:05.123Z","a":3,"big":1e+21,"reward/mean":0.1,"val/success":0.5}` + "\n",
		`{"step":3,"time":"2026-01-02T15:04:05Z","nan":"NaN","ninf":"-Inf","pinf":"+Inf","n":null}` + "\n",
		"{\"step\":1,\"time\":\"2026-01-02T17:04:05+02:00\",\"q\\\"uote\\u00e9\":-0}\r\n",
		`{"step":1,"time":"2026-01-02T15:04:05Z"}` + "\n" + `{"step":2,"ti`,
		"\n\n",
		`{"step":1.5}`,
		`[{"step":1}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		records, err := DecodeMetrics(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := NewMetricsWriterTo(&buf)
		for _, r := range records {
			if err := w.WriteRecord(r); err != nil {
				t.Fatalf("decoded record %+v does not write back: %v", r, err)
			}
		}
		again, err := DecodeMetrics(&buf)
		if err != nil {
			t.Fatalf("written records do not decode: %v\n%s", err, buf.Bytes())
		}
		sameRecords(t, again, records)
	})
}
