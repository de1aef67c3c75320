package runview

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/org/agentevolver/runlog/episodelog"
)

func newTestServer(t *testing.T, dirs ...string) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(Config{Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

func get(t *testing.T, ts *httptest.Server, path string, v any) int {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, body)
		}
	}
	return resp.StatusCode
}

func TestRunsDiscovered(t *testing.T) {
	dir := makeRuns(t)
	_, ts := newTestServer(t, dir, filepath.Join(dir, "run-a"))
	var runs []Run
	if code := get(t, ts, "/api/runs", &runs); code != 200 {
		t.Fatalf("status %d", code)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.ID+"|"+r.Group+"|"+r.Label+"|"+strconv.FormatBool(r.Episodes))
	}
	want := []string{
		"0/exp/arm-a/seed-1|exp/arm-a|seed-1|false", "0/exp/arm-a/seed-2|exp/arm-a|seed-2|false",
		"0/exp/arm-b/seed-1|exp/arm-b|seed-1|false", "0/exp/arm-b/seed-2|exp/arm-b|seed-2|false",
		"0/run-a|run-a|run-a|true", "1/.|.|run-a|true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := New(Config{Dirs: []string{filepath.Join(dir, "missing")}}); err == nil {
		t.Error("a missing directory was accepted")
	}
	if _, err := New(Config{}); err == nil {
		t.Error("no directory was accepted")
	}
}

// TestRefusesPathsOutside: no run ID, however written, reads outside the
// directories given, symbolic links included.
func TestRefusesPathsOutside(t *testing.T) {
	dir := makeRuns(t)
	outside := t.TempDir()
	writeMetrics(t, outside, 2, func(int) map[string]float64 { return map[string]float64{"secret": 42} })
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, filepath.Join(dir, "exp"))
	for _, id := range []string{
		"0/../run-a", "0/..", "0/arm-a/../../run-a", "0//etc", "0/" + outside, "1/run-a", "-1/x", "00/arm-a/seed-1",
		"0/link", "0/arm-a/seed-1/../../../link", "x", "", "0/arm-a\\..\\..\\run-a",
	} {
		for _, api := range []string{"/api/metrics?run=", "/api/episodes?run="} {
			resp, err := http.Get(ts.URL + api + url.QueryEscape(id))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), "secret") || strings.Contains(string(body), "reward") {
				t.Errorf("%s%q: %d %s", api, id, resp.StatusCode, body)
			}
		}
	}
	// A link inside a given directory that leads out of it is not followed either.
	_, ts2 := newTestServer(t, dir)
	if code := get(t, ts2, "/api/metrics?run="+url.QueryEscape("0/link"), nil); code != http.StatusNotFound {
		t.Errorf("symlink out of the run directory: %d", code)
	}
	var runs []Run
	get(t, ts2, "/api/runs", &runs)
	for _, r := range runs {
		if strings.Contains(r.Path, "link") {
			t.Errorf("listed %s through a link", r.Path)
		}
	}
	for _, p := range []string{"/static/../server.go", "/static/%2e%2e/server.go", "/../runs.go"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "package runview") {
			t.Errorf("%s served source", p)
		}
	}
}

// TestGrowingRun: the line being written is left out; once complete it
// appears; a malformed metrics line is skipped, not fatal.
func TestGrowingRun(t *testing.T) {
	dir := makeRuns(t)
	run := filepath.Join(dir, "run-a")
	_, ts := newTestServer(t, dir)
	id := url.QueryEscape("0/run-a")
	var m Metrics
	if code := get(t, ts, "/api/metrics?run="+id, &m); code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	if len(m.Records) != 11 || m.Records[len(m.Records)-1].Step != 10 || m.Skipped != 0 {
		t.Fatalf("%d records ending at %d, skipped %d; want 11 ending at 10", len(m.Records), m.Records[len(m.Records)-1].Step, m.Skipped)
	}
	var eps Episodes
	get(t, ts, "/api/episodes?run="+id, &eps)
	if eps.Total != 12 {
		t.Fatalf("%d episodes, want 12 (the one being written left out)", eps.Total)
	}
	appendTo(t, filepath.Join(run, MetricsFile), "}\nnot json\n")
	appendTo(t, filepath.Join(run, EpisodesFile), `ten"}`+"\n{broken\n")
	get(t, ts, "/api/metrics?run="+id, &m)
	if len(m.Records) != 12 || m.Skipped != 1 {
		t.Errorf("after the line completed: %d records, %d skipped; want 12, 1", len(m.Records), m.Skipped)
	}
	get(t, ts, "/api/episodes?run="+id, &eps)
	if eps.Total != 13 || eps.Skipped != 1 {
		t.Errorf("after the line completed: %d episodes, %d skipped; want 13, 1", eps.Total, eps.Skipped)
	}
	// A resumed run rewrites the log shorter: indexed afresh.
	w, err := episodelog.OpenForResume(filepath.Join(run, EpisodesFile), 1, episodelog.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	get(t, ts, "/api/episodes?run="+id, &eps)
	if eps.Total != 3 {
		t.Errorf("after the rewrite: %d episodes, want the 3 of step 1", eps.Total)
	}
}

func TestEpisodeFilters(t *testing.T) {
	dir := makeRuns(t)
	_, ts := newTestServer(t, dir)
	id := url.QueryEscape("0/run-a")
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"", 12},
		{"&outcome=success", 5},
		{"&outcome=failure", 5},
		{"&outcome=failed", 2},
		{"&cause=step", 1},
		{"&phase=validation", 1},
		{"&task=TASK-1", 3},
		{"&step=2", 4},
		{"&phase=train&outcome=success&step=3", 1},
	} {
		var eps Episodes
		if code := get(t, ts, "/api/episodes?run="+id+tc.query, &eps); code != 200 {
			t.Fatalf("%s: %d", tc.query, code)
		}
		if eps.Matched != tc.want || len(eps.Items) != tc.want {
			t.Errorf("%q: %d matched (%d items), want %d", tc.query, eps.Matched, len(eps.Items), tc.want)
		}
		if tc.query == "" && (strings.Join(eps.Causes, ",") != "create,step" || strings.Join(eps.Phases, ",") != "train,validation") {
			t.Errorf("facets %v %v", eps.Causes, eps.Phases)
		}
	}
	if code := get(t, ts, "/api/episodes?run="+id+"&outcome=maybe", nil); code != http.StatusBadRequest {
		t.Errorf("bad outcome: %d", code)
	}
	var eps Episodes
	get(t, ts, "/api/episodes?run="+id+"&phase=validation", &eps)
	var ep episodelog.Episode
	if code := get(t, ts, "/api/episode?run="+id+"&at="+strconv.FormatInt(eps.Items[0].At, 10), &ep); code != 200 {
		t.Fatalf("episode: %d", code)
	}
	if ep.TaskID != "val-task-0" || len(ep.Samples) != 1 || ep.Samples[0].Mask != "000011100" {
		t.Errorf("episode %+v", ep)
	}
	for _, at := range []string{strconv.FormatInt(eps.Items[0].At+1, 10), "-1", "x", "99999999"} {
		if code := get(t, ts, "/api/episode?run="+id+"&at="+at, nil); code != http.StatusNotFound && code != http.StatusBadRequest {
			t.Errorf("at=%s: %d", at, code)
		}
	}
}

// TestBrowserGuards: a foreign Host (DNS rebinding) is refused, and only
// GET and HEAD are served.
func TestBrowserGuards(t *testing.T) {
	dir := makeRuns(t)
	_, ts := newTestServer(t, dir)
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/runs", nil)
	req.Host = "attacker.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign host: %d", resp.StatusCode)
	}
	resp, err = http.Post(ts.URL+"/api/runs", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	resp, err = http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(string(body), "/static/app.js") || strings.Contains(string(body), "http") && strings.Contains(string(body), "://") {
		t.Errorf("page: CSP %q, body refers outside: %v", csp, strings.Contains(string(body), "://"))
	}
}
