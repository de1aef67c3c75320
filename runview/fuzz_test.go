package runview

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseID: an accepted run ID names a local path: no "..", no
// absolute path, no backslash.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"0/.", "0/run-a", "1/exp/arm/seed-1", "0/../x", "0//x", "-0/x", "0/x/", "0/\\x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		i, p, err := parseID(id, 2)
		if err != nil {
			return
		}
		if i < 0 || i > 1 || strings.Contains(p, "\\") || strings.HasPrefix(p, "/") || (p != "." && !filepath.IsLocal(p)) {
			t.Fatalf("parseID(%q) = %d, %q", id, i, p)
		}
		for _, el := range strings.Split(p, "/") {
			if el == ".." || el == "" {
				t.Fatalf("parseID(%q) = %q", id, p)
			}
		}
	})
}

// FuzzRunLogs: whatever a run's logs hold, the API answers 200 with JSON
// (malformed lines skipped), never 500 or a panic.
func FuzzRunLogs(f *testing.F) {
	f.Add([]byte(`{"step":1,"time":"2026-01-02T15:04:05Z","a":1}`+"\n"+`{"step":2,"ti`), []byte(`{"phase":"train","step":1,"task_id":"a","samples":[{"ids":[1,2]}]}`+"\n{bad\n"))
	f.Add([]byte("\n\n\x00"), []byte(`{"phase":"x","messages":[{"role":"assistant"}]}`+"\n"))
	f.Add([]byte(`[1]`+"\n"), []byte(`{"phase":"train","outcome":"NaN"}`+"\n"))
	f.Fuzz(func(t *testing.T, metrics, episodes []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, MetricsFile), metrics, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, EpisodesFile), episodes, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := New(Config{Dirs: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, path := range []string{"/api/metrics?run=0/.", "/api/episodes?run=0/.", "/api/runs"} {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, localRequest(path))
			if rec.Code != http.StatusOK || !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.Bytes())
			}
			if path == "/api/episodes?run=0/." {
				var eps Episodes
				_ = json.Unmarshal(rec.Body.Bytes(), &eps)
				for _, e := range eps.Items {
					rec := httptest.NewRecorder()
					s.ServeHTTP(rec, localRequest("/api/episode?run=0/.&at="+url.QueryEscape(itoa(e.At))))
					if rec.Code == http.StatusInternalServerError {
						t.Fatalf("episode at %d: %s", e.At, rec.Body.Bytes())
					}
				}
			}
		}
	})
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// localRequest is a GET as a browser on this machine sends it.
func localRequest(path string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Host = "localhost"
	return r
}
