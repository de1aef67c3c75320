package envclient

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// recordedRequest is what a test server saw.
type recordedRequest struct {
	Method     string
	RequestURI string
	Body       map[string]any
}

// recorder keeps the requests a test server received.
type recorder struct {
	mu   sync.Mutex
	reqs []recordedRequest
}

func (rec *recorder) add(t *testing.T, r *http.Request) recordedRequest {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("reading request body: %v", err)
	}
	rr := recordedRequest{Method: r.Method, RequestURI: r.RequestURI}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &rr.Body); err != nil {
			t.Errorf("request body %q is not a JSON object: %v", data, err)
		}
	}
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, rr)
	rec.mu.Unlock()
	return rr
}

func (rec *recorder) all() []recordedRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]recordedRequest(nil), rec.reqs...)
}

func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

// serve starts a test server whose handler records every request before
// calling h.
func serve(t *testing.T, h func(w http.ResponseWriter, r recordedRequest)) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(w, rec.add(t, r))
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

// writeBody writes a raw body with a status.
func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// testConfig is a Config with tiny backoffs and a seeded random source.
func testConfig(baseURL string) Config {
	return Config{
		BaseURL:    baseURL,
		BackoffMin: time.Millisecond,
		BackoffMax: 2 * time.Millisecond,
		Timeout:    -1,
		Rand:       rand.New(rand.NewPCG(1, 2)),
	}
}

func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, got, want []byte) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v: %s", err, want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
