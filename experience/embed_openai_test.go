package experience

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// embedRequest is what the fake server records of a request.
type embedRequest struct {
	Path, Auth string
	Body       map[string]any
}

// fakeEmbeddings serves /v1/embeddings: each input's vector is (its
// length, its index in the request, 1, ...), answered in reverse order to
// check that indexes are honoured.
func fakeEmbeddings(t *testing.T, dim int) (*httptest.Server, func() []embedRequest) {
	var mu sync.Mutex
	var reqs []embedRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body: %v", err)
		}
		mu.Lock()
		reqs = append(reqs, embedRequest{r.URL.Path, r.Header.Get("Authorization"), body})
		mu.Unlock()
		inputs, _ := body["input"].([]any)
		var data []string
		for i := len(inputs) - 1; i >= 0; i-- {
			vec := make([]string, dim)
			for j := range vec {
				vec[j] = "1"
			}
			vec[0] = fmt.Sprint(len(inputs[i].(string)))
			if dim > 1 {
				vec[1] = fmt.Sprint(i)
			}
			data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%s]}`, i, strings.Join(vec, ",")))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","model":"m","data":[%s],"usage":{"prompt_tokens":1,"total_tokens":1}}`, strings.Join(data, ","))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []embedRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]embedRequest(nil), reqs...)
	}
}

func TestEmbedOpenAIBatchesAndOrder(t *testing.T) {
	srv, requests := fakeEmbeddings(t, 3)
	emb, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: srv.URL + "/v1", APIKey: "sk-test",
		Model: "text-embedding-v4", Dimension: 3, SendDimension: true, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if emb.Name() != "text-embedding-v4" || emb.Dimension() != 3 {
		t.Fatalf("Name/Dimension = %s/%d", emb.Name(), emb.Dimension())
	}
	in := []string{"a", "bb", "", "dddd", "eeeee", " "}
	got, err := emb.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 0, 1}, {2, 1, 1}, {0, 0, 0}, {4, 0, 1}, {5, 1, 1}, {0, 0, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Embed = %v, want %v", got, want)
	}
	reqs := requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (4 non-empty texts in batches of 2)", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != "/v1/embeddings" || r.Auth != "Bearer sk-test" || r.Body["model"] != "text-embedding-v4" ||
			r.Body["encoding_format"] != "float" || r.Body["dimensions"] != 3.0 {
			t.Errorf("request %d: %+v", i, r)
		}
	}
	if fmt.Sprint(reqs[0].Body["input"], reqs[1].Body["input"]) != "[a bb] [dddd eeeee]" {
		t.Errorf("inputs: %v, %v", reqs[0].Body["input"], reqs[1].Body["input"])
	}

	noDim, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: srv.URL + "/v1", Model: "m", Dimension: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noDim.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := requests()[2].Body["dimensions"]; ok {
		t.Error("dimensions sent without SendDimension")
	}
}

func TestEmbedOpenAIConfig(t *testing.T) {
	for _, cfg := range []OpenAIEmbedderConfig{{Dimension: 8}, {Model: "m"}, {Model: "m", Dimension: MaxDimension + 1}} {
		if _, err := NewOpenAIEmbedder(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

func TestEmbedOpenAIErrors(t *testing.T) {
	type check func(t *testing.T, err error)
	isUnavailable := func(also ...error) check {
		return func(t *testing.T, err error) {
			var ue *openai.UnavailableError
			if !errors.Is(err, llm.ErrUnavailable) || !errors.As(err, &ue) || ue.Attempts != 1 {
				t.Errorf("err = %v, want an *openai.UnavailableError", err)
			}
			for _, e := range also {
				if !errors.Is(err, e) {
					t.Errorf("err = %v, want it to match %v", err, e)
				}
			}
		}
	}
	isFinal := func(target error, status int) check {
		return func(t *testing.T, err error) {
			if errors.Is(err, llm.ErrUnavailable) {
				t.Errorf("err = %v is reported as an outage", err)
			}
			if target != nil && !errors.Is(err, target) {
				t.Errorf("err = %v, want %v", err, target)
			}
			var apiErr *openai.APIError
			if status != 0 && (!errors.As(err, &apiErr) || apiErr.StatusCode != status) {
				t.Errorf("err = %v, want an *openai.APIError with status %d", err, status)
			}
		}
	}
	release := make(chan struct{}) // ends the slow handlers
	defer close(release)
	slow := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server notices a closed connection
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	reply := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		check   check
	}{
		{"500", reply(500, `{"error":{"message":"boom","type":"server_error"}}`), isUnavailable()},
		{"503 html", reply(503, `<html>down</html>`), isUnavailable()},
		{"429", reply(429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`), isUnavailable(openai.ErrRateLimited)},
		{"400", reply(400, `{"object":"error","message":"bad model","type":"BadRequestError","code":400}`), isFinal(nil, 400)},
		{"401", reply(401, `{"error":"unauthorised"}`), isFinal(nil, 401)},
		{"error in 200", reply(200, `{"object":"error","message":"model not loaded","code":404}`), isFinal(nil, 404)},
		{"wrong dimension", reply(200, `{"data":[{"index":0,"embedding":[1,2]}]}`), isFinal(openai.ErrMalformedResponse, 0)},
		{"missing vector", reply(200, `{"data":[]}`), isFinal(openai.ErrMalformedResponse, 0)},
		{"repeated index", reply(200, `{"data":[{"index":0,"embedding":[1,2,3]},{"index":0,"embedding":[1,2,3]}]}`), isFinal(openai.ErrMalformedResponse, 0)},
		{"overflow", reply(200, `{"data":[{"index":0,"embedding":[1e300,2,3]}]}`), isFinal(openai.ErrMalformedResponse, 0)},
		{"not json", reply(200, `data: nope`), isFinal(openai.ErrMalformedResponse, 0)},
		{"too large", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"data":[{"index":0,"embedding":[1,2,3]}],"pad":"`+strings.Repeat("x", 5000)+`"}`)
		}, isFinal(openai.ErrResponseTooLarge, 0)},
		{"slow", slow, isUnavailable(openai.ErrTimeout)},
		{"dropped", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}, isUnavailable(openai.ErrTransport)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			defer srv.CloseClientConnections()
			emb, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: srv.URL, Model: "m", Dimension: 3,
				RequestTimeout: 200 * time.Millisecond, MaxResponseBytes: 4096})
			if err != nil {
				t.Fatal(err)
			}
			_, err = emb.Embed(context.Background(), []string{"text"})
			if err == nil {
				t.Fatal("no error")
			}
			tt.check(t, err)
		})
	}

	t.Run("refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		emb, _ := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: url, Model: "m", Dimension: 3})
		_, err := emb.Embed(context.Background(), []string{"text"})
		isUnavailable(openai.ErrConnectionRefused)(t, err)
	})
	t.Run("cancelled", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(slow))
		defer srv.Close()
		defer srv.CloseClientConnections()
		emb, _ := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: srv.URL, Model: "m", Dimension: 3})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := emb.Embed(ctx, []string{"text"})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, llm.ErrUnavailable) {
			t.Errorf("err = %v, want the caller's deadline, not an outage", err)
		}
	})
}

func TestEmbedOpenAIBase64(t *testing.T) {
	// Some servers answer base64 even when asked for floats.
	vec := encodeVector([]float32{0.5, -1, 2})
	body := fmt.Sprintf(`{"data":[{"index":0,"embedding":%q}]}`, base64.StdEncoding.EncodeToString(vec))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	emb, err := NewOpenAIEmbedder(OpenAIEmbedderConfig{BaseURL: srv.URL, Model: "m", Dimension: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := emb.Embed(context.Background(), []string{"x"})
	if err != nil || fmt.Sprint(got) != "[[0.5 -1 2]]" {
		t.Fatalf("got %v, %v", got, err)
	}
}
