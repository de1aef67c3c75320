package main

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzGPUReportStageDir feeds arbitrary stages.jsonl, test logs and
// result files to the report assembler: it returns an error or a report,
// never panics, and every stage it reports has a known status.
func FuzzGPUReportStageDir(f *testing.F) {
	f.Add([]byte(`{"name":"model-xla","rc":0,"seconds":1,"timeout_s":60,"log":"x.log"}`), []byte("--- PASS: TestA (0.10s)\n"), []byte(`{"backend":"go"}`), []byte(`{"time/step_s":1}`))
	f.Add([]byte(`{"name":"b","rc":124,"seconds":1,"timeout_s":1,"log":"../../etc/passwd"}`), []byte("    --- SKIP: TestA/b (0.00s)"), []byte(`{"status":"ok"}`), []byte(`{}`))
	f.Add([]byte("{}\n\n"), []byte{}, []byte("null"), []byte("[]"))
	f.Fuzz(func(t *testing.T, stages, log, result, metrics []byte) {
		dir := t.TempDir()
		for name, data := range map[string][]byte{"stages.jsonl": stages, "x.log": log, "bench.json": result,
			"anchor.json": result, "env.json": result, "parity.jsonl": result} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, "mainjob"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "mainjob", "metrics.jsonl"), metrics, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := assembleGPUReport(dir, "run")
		if err != nil {
			return
		}
		for _, st := range rep.Stages {
			switch st.Status {
			case "pass", "fail", "timeout", "skip":
			default:
				t.Fatalf("stage %q has status %q", st.Name, st.Status)
			}
			if len(st.LogTail) > maxLogTail {
				t.Fatalf("log tail of %d bytes", len(st.LogTail))
			}
		}
		_ = parseGoTestLog(log)
		_, _ = parseSMIApps(string(log), 1)
	})
}
