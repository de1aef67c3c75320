package experience_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/org/agentevolver/experience"
)

// The local embedder needs no service: texts that share words and
// spellings get similar vectors.
func ExampleLocalEmbedder() {
	emb := experience.NewLocalEmbedder(256)
	vecs, err := emb.Embed(context.Background(), []string{
		"Reset the wifi router", "the router needs a wifi reset", "Book a flight to Paris",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cos := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	fmt.Println(emb.Name(), emb.Dimension())
	fmt.Printf("related %.2f, unrelated %.2f\n", cos(vecs[0], vecs[1]), cos(vecs[0], vecs[2]))
	// Output:
	// local-hash-ngram-v1 256
	// related 0.84, unrelated 0.08
}

// An embedding model behind any OpenAI-compatible server (vLLM, ollama,
// DashScope); here a stand-in that answers one fixed vector.
func ExampleOpenAIEmbedder() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8,0]}],"model":"bge-m3"}`)
	}))
	defer srv.Close()

	emb, err := experience.NewOpenAIEmbedder(experience.OpenAIEmbedderConfig{
		BaseURL: srv.URL + "/v1", Model: "bge-m3", Dimension: 3,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := emb.Embed(context.Background(), []string{"Reset the wifi router"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(emb.Name(), vecs[0])
	// Output:
	// bge-m3 [0.6 0.8 0]
}
