package openai

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/org/agentevolver/llm"
)

// embeddingsJSON answers n inputs with vectors (i, 1) in reverse order.
func embeddingsJSON(n int) string {
	data := ""
	for i := n - 1; i >= 0; i-- {
		if data != "" {
			data += ","
		}
		data += fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%d,1]}`, i, i)
	}
	return `{"object":"list","model":"m","data":[` + data + `],"usage":{"prompt_tokens":1,"total_tokens":1}}`
}

func TestEmbedRequest(t *testing.T) {
	s := newScriptedServer(t, jsonReply(200, embeddingsJSON(3)))
	c := newTestClient(t, s, func(c *Config) {
		c.Model = "text-embedding-v4"
		c.ExtraBody = map[string]any{"top_k": 5} // chat only
	})
	got, err := c.Embed(testContext(t), []string{"a", "b", "c"}, EmbedOptions{Dimension: 2, SendDimension: true})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[[0 1] [1 1] [2 1]]" {
		t.Errorf("vectors = %v", got)
	}
	body := s.body(0)
	if body["model"] != "text-embedding-v4" || body["encoding_format"] != "float" || body["dimensions"] != 2.0 ||
		fmt.Sprint(body["input"]) != "[a b c]" {
		t.Errorf("request body = %v", body)
	}
	if _, ok := body["top_k"]; ok {
		t.Error("ExtraBody sent with an embeddings request")
	}

	s2 := newScriptedServer(t, jsonReply(200, embeddingsJSON(1)))
	if _, err := newTestClient(t, s2, nil).Embed(testContext(t), []string{"a"}, EmbedOptions{Dimension: 2}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s2.body(0)["dimensions"]; ok {
		t.Error("dimensions sent without SendDimension")
	}

	if _, err := c.Embed(testContext(t), nil, EmbedOptions{}); err == nil {
		t.Error("no texts accepted")
	}
}

// TestEmbedRetries: embeddings go through Chat's retry loop.
func TestEmbedRetries(t *testing.T) {
	s := newScriptedServer(t,
		jsonReply(503, `{"error":{"message":"overloaded"}}`),
		jsonReply(200, `{"object":"error","message":"busy","code":500}`), // in the body, typed as a 500
		jsonReply(200, embeddingsJSON(1)))
	got, err := newTestClient(t, s, nil).Embed(testContext(t), []string{"a"}, EmbedOptions{})
	if err != nil || len(got) != 1 || s.count() != 3 {
		t.Fatalf("got %v, %v after %d requests, want a vector after 3", got, err, s.count())
	}

	s = newScriptedServer(t, jsonReply(429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`))
	_, err = newTestClient(t, s, func(c *Config) { c.MaxRetries = -1 }).Embed(testContext(t), []string{"a"}, EmbedOptions{})
	var ue *UnavailableError
	if !errors.Is(err, llm.ErrUnavailable) || !errors.As(err, &ue) || ue.Attempts != 1 || !errors.Is(err, ErrRateLimited) {
		t.Fatalf("err = %v, want an *UnavailableError of 1 attempt matching ErrRateLimited", err)
	}

	s = newScriptedServer(t, jsonReply(400, `{"error":{"message":"input too long","code":"context_length_exceeded"}}`))
	_, err = newTestClient(t, s, nil).Embed(testContext(t), []string{"a"}, EmbedOptions{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || errors.Is(err, llm.ErrUnavailable) || s.count() != 1 {
		t.Fatalf("err = %v after %d requests, want a final *APIError after 1", err, s.count())
	}

	s = newScriptedServer(t, hang)
	_, err = newTestClient(t, s, func(c *Config) {
		c.RequestTimeout = 50 * time.Millisecond
		c.MaxRetries = 1
	}).Embed(testContext(t), []string{"a"}, EmbedOptions{})
	if !errors.As(err, &ue) || ue.Attempts != 2 || !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want an *UnavailableError of 2 timed-out attempts", err)
	}
}

func TestEmbedBounds(t *testing.T) {
	s := newScriptedServer(t, jsonReply(200, embeddingsJSON(40)))
	_, err := newTestClient(t, s, func(c *Config) { c.MaxResponseBytes = 256 }).Embed(testContext(t), make40(), EmbedOptions{})
	if !errors.Is(err, ErrResponseTooLarge) || s.count() != 1 {
		t.Fatalf("err = %v after %d requests, want ErrResponseTooLarge after 1", err, s.count())
	}
}

func make40() []string {
	out := make([]string, 40)
	for i := range out {
		out[i] = "t"
	}
	return out
}

func TestDecodeEmbeddings(t *testing.T) {
	f32 := func(v ...float32) string {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	tests := []struct {
		name      string
		body      string
		want, dim int
		vecs      string // "" for an error
		apiErr    bool
	}{
		{"in order", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[3,4]}]}`, 2, 2, "[[1 2] [3 4]]", false},
		{"no index", `{"data":[{"embedding":[1,2]},{"embedding":[3,4]}]}`, 2, 2, "[[1 2] [3 4]]", false},
		{"base64", fmt.Sprintf(`{"data":[{"index":0,"embedding":%q}]}`, f32(0.5, -1, 2)), 1, 3, "[[0.5 -1 2]]", false},
		{"any dimension", `{"data":[{"index":0,"embedding":[1,2,3,4,5]}]}`, 1, 0, "[[1 2 3 4 5]]", false},
		{"wrong dimension", `{"data":[{"index":0,"embedding":[1,2]}]}`, 1, 3, "", false},
		{"base64 wrong dimension", fmt.Sprintf(`{"data":[{"index":0,"embedding":%q}]}`, f32(1, 2)), 1, 3, "", false},
		{"base64 ragged", `{"data":[{"index":0,"embedding":"AAAA/wA="}]}`, 1, 0, "", false},
		{"empty vector", `{"data":[{"index":0,"embedding":[]}]}`, 1, 0, "", false},
		{"too few", `{"data":[]}`, 1, 2, "", false},
		{"repeated index", `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`, 2, 1, "", false},
		{"index out of range", `{"data":[{"index":3,"embedding":[1]}]}`, 1, 1, "", false},
		{"overflow", `{"data":[{"index":0,"embedding":[1e300]}]}`, 1, 1, "", false},
		{"not JSON", `data: nope`, 1, 1, "", false},
		{"error in body", `{"object":"error","message":"model not loaded","code":404}`, 1, 1, "", true},
		{"error object", `{"error":{"message":"boom","type":"server_error"}}`, 1, 1, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeEmbeddings([]byte(tt.body), tt.want, tt.dim)
			switch {
			case tt.vecs != "":
				if err != nil || fmt.Sprint(got) != tt.vecs {
					t.Fatalf("got %v, %v; want %s", got, err, tt.vecs)
				}
			case tt.apiErr:
				var apiErr *APIError
				if !errors.As(err, &apiErr) || !apiErr.InBody || apiErr.StatusCode == 0 {
					t.Fatalf("err = %v, want an in-body *APIError with a status", err)
				}
			default:
				if !errors.Is(err, ErrMalformedResponse) {
					t.Fatalf("got %v, %v; want ErrMalformedResponse", got, err)
				}
			}
		})
	}
}

// FuzzEmbedResponse feeds arbitrary bodies to the parser of /embeddings
// answers: it never panics, fails with ErrMalformedResponse or an
// *APIError, and accepts only want vectors of the dimension with finite
// values.
func FuzzEmbedResponse(f *testing.F) {
	f.Add([]byte(`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[1,0]},{"index":0,"embedding":[0,1]}]}`), 2, 2)
	f.Add([]byte(`{"data":[{"index":0,"embedding":"AAAAPwAAgD8="}]}`), 1, 2)
	f.Add([]byte(`{"object":"error","message":"bad","code":400}`), 1, 2)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1e39]}]}`), 1, 1)
	f.Fuzz(func(t *testing.T, body []byte, want, dim int) {
		if want < 0 || want > 64 || dim > 64 {
			return
		}
		vecs, err := decodeEmbeddings(body, want, dim)
		if err != nil {
			var apiErr *APIError
			if !errors.Is(err, ErrMalformedResponse) && !errors.As(err, &apiErr) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if len(vecs) != want {
			t.Fatalf("%d vectors, want %d", len(vecs), want)
		}
		for _, v := range vecs {
			if len(v) == 0 || (dim > 0 && len(v) != dim) {
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
