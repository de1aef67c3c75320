package experience

import (
	"context"
	"math"
	"testing"
)

// FuzzEmbedLocal checks that the local embedder takes any text and gives
// a unit vector or the zero vector, deterministically.
func FuzzEmbedLocal(f *testing.F) {
	f.Add("Reset the router!")
	f.Add("重置路由器 café \xff\xfe")
	f.Add("")
	emb := NewLocalEmbedder(32)
	f.Fuzz(func(t *testing.T, text string) {
		vs, err := emb.Embed(context.Background(), []string{text, text})
		if err != nil {
			t.Fatal(err)
		}
		var sq float64
		for i, x := range vs[0] {
			if x != vs[1][i] {
				t.Fatal("not deterministic")
			}
			sq += float64(x) * float64(x)
		}
		if sq != 0 && math.Abs(sq-1) > 1e-5 {
			t.Fatalf("squared norm %v", sq)
		}
	})
}
