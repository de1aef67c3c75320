package experience

import (
	"context"
	"errors"
	"math"
	"testing"
)

// The expected vectors were computed by an independent Python
// implementation of the algorithm in LocalEmbedder's doc comment (FNV-1a
// 64 written out, features and signs as documented). A change here is a
// change of algorithm: bump LocalEmbedderName.
func TestEmbedLocalGolden(t *testing.T) {
	tests := []struct {
		text string
		want []float32
	}{
		{"Reset the router!", []float32{0.1622214, -0.1622214, -0.1622214, -0.3244428, 0, 0, 0, -0.3244428, 0,
			-0.1622214, -0.1622214, -0.3244428, -0.1622214, 0.3244428, 0.6488857, 0}},
		{"重置路由器 café", []float32{0, 0, 0, -0.3713907, 0, 0, 0.1856953, 0.7427814, -0.1856953, 0.1856953,
			0.3713907, 0, 0, 0, 0.1856953, -0.1856953}},
		{"  --- !!! ", make([]float32, 16)},
		{"", make([]float32, 16)},
	}
	emb := NewLocalEmbedder(16)
	texts := make([]string, len(tests))
	for i, tt := range tests {
		texts[i] = tt.text
	}
	got, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		for j := range tt.want {
			if math.Abs(float64(got[i][j]-tt.want[j])) > 1e-6 {
				t.Errorf("%q: got %v, want %v", tt.text, got[i], tt.want)
				break
			}
		}
	}
}

func TestEmbedLocalProperties(t *testing.T) {
	ctx := context.Background()
	emb := NewLocalEmbedder(0)
	if emb.Dimension() != DefaultLocalDimension || emb.Name() != LocalEmbedderName {
		t.Fatalf("defaults: %s/%d", emb.Name(), emb.Dimension())
	}
	if NewLocalEmbedder(MaxDimension+1).Dimension() != MaxDimension {
		t.Error("dimension not capped")
	}
	vecs, err := emb.Embed(ctx, []string{
		"Reset the wifi router", "the WiFi router must be reset", "book a flight to Paris", "Reset the wifi router",
	})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for i, v := range vecs {
		if n := dot(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has squared norm %v", i, n)
		}
	}
	if same := dot(vecs[0], vecs[3]); same != dot(vecs[0], vecs[0]) {
		t.Errorf("not deterministic: %v", same)
	}
	if near, far := dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2]); near <= far || near < 0.4 {
		t.Errorf("similar texts %.3f, unrelated %.3f", near, far)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := emb.Embed(cancelled, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestEmbedCheckVectors(t *testing.T) {
	good := [][]float32{{3, 4}, {0, 0}}
	got, err := checkVectors(good, 2, 2, "e")
	if err != nil || got[0][0] != 0.6 || got[0][1] != 0.8 || got[1][0] != 0 {
		t.Fatalf("normalise: %v, %v", got, err)
	}
	if good[0][0] != 3 {
		t.Error("checkVectors modified its input")
	}
	for name, vecs := range map[string][][]float32{
		"count":     {{1, 0}},
		"dimension": {{1, 0}, {1}},
		"NaN":       {{1, 0}, {float32(math.NaN()), 0}},
		"Inf":       {{1, 0}, {float32(math.Inf(-1)), 0}},
	} {
		if _, err := checkVectors(vecs, 2, 2, "e"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestEmbedVectorEncoding(t *testing.T) {
	v := []float32{0, -1.5, 3.25e-7, float32(math.MaxFloat32)}
	got, err := decodeVector(nil, encodeVector(v), len(v))
	if err != nil || len(got) != len(v) {
		t.Fatal(got, err)
	}
	for i := range v {
		if got[i] != v[i] {
			t.Errorf("[%d] = %v, want %v", i, got[i], v[i])
		}
	}
	if _, err := decodeVector(nil, encodeVector(v)[:15], len(v)); err == nil {
		t.Error("short vector accepted")
	}
	if _, err := decodeVector(nil, encodeVector([]float32{float32(math.NaN())}), 1); err == nil {
		t.Error("NaN accepted")
	}
}
