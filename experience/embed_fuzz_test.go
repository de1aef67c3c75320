package experience

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/org/agentevolver/llm/openai"
)

// FuzzEmbedResponse feeds arbitrary bodies to the parser of /embeddings
// answers: it never panics, fails with openai.ErrMalformedResponse or an
// *openai.APIError, and accepts only want vectors of the dimension with
// finite values.
func FuzzEmbedResponse(f *testing.F) {
	f.Add([]byte(`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`), 2, 2)
	f.Add([]byte(`{"data":[{"index":0,"embedding":"AAAAPwAAgD8="}]}`), 1, 2)
	f.Add([]byte(`{"object":"error","message":"bad","code":400}`), 1, 2)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1e39]}]}`), 1, 1)
	f.Fuzz(func(t *testing.T, body []byte, want, dim int) {
		if want < 0 || want > 64 || dim <= 0 || dim > 64 {
			return
		}
		vecs, err := decodeEmbeddings(body, want, dim)
		if err != nil {
			var apiErr *openai.APIError
			if !errors.Is(err, openai.ErrMalformedResponse) && !errors.As(err, &apiErr) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(vecs) != want {
			t.Fatalf("%d vectors, want %d", len(vecs), want)
		}
		for _, v := range vecs {
			if len(v) != dim {
				t.Fatalf("dimension %d, want %d", len(v), dim)
			}
			for _, x := range v {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					t.Fatalf("non-finite value in %v", v)
				}
			}
		}
	})
}

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
