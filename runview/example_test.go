package runview_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/runview"
)

// Serve a run directory and ask for its runs and metrics, as the page
// does.
func Example() {
	dir, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(dir)
	w, err := runlog.NewMetricsWriter(filepath.Join(dir, "toolworld-tiny", "metrics.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	t := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	w.WriteRecord(runlog.Record{Step: 1, Time: t, Values: map[string]float64{"reward/mean": 0.25}})
	w.WriteRecord(runlog.Record{Step: 2, Time: t, Values: map[string]float64{"reward/mean": 0.5}})
	w.Close()

	srv, err := runview.New(runview.Config{Dirs: []string{dir}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	for _, r := range srv.Runs() {
		fmt.Println("run", r.ID, "metrics:", r.Metrics, "episodes:", r.Episodes)
	}
	get := func(path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = "localhost" // the name a browser on this machine sends
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	rec := get("/api/metrics?run=0/toolworld-tiny")
	var m runview.Metrics
	json.Unmarshal(rec.Body.Bytes(), &m)
	for _, r := range m.Records {
		fmt.Println("step", r.Step, "reward/mean", r.Values["reward/mean"])
	}
	rec = get("/api/metrics?run=0/../..")
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// run 0/toolworld-tiny metrics: true episodes: false
	// step 1 reward/mean 0.25
	// step 2 reward/mean 0.5
	// 404 {"error":"runview: no such run: \"0/../..\" is not a path below the run directories"}
}
