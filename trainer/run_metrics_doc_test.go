package trainer

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/org/agentevolver/runlog"
)

// documentedMetrics returns patterns for the metric keys of the "Metrics"
// table of docs/metrics.md, the one place they are documented.
func documentedMetrics(t *testing.T) []*regexp.Regexp {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "## Metrics")
	if !ok {
		t.Fatal("docs/metrics.md has no Metrics section")
	}
	var out []*regexp.Regexp
	key := regexp.MustCompile("`([^`]+)`")
	for line := range strings.Lines(table) {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		for _, m := range key.FindAllStringSubmatch(first, -1) {
			p := regexp.QuoteMeta(m[1])
			p = strings.ReplaceAll(p, "<cause>", "[a-z_]+")
			p = strings.ReplaceAll(p, "@K", "@[0-9]+")
			p = strings.ReplaceAll(p, "<name>", "[a-z0-9_]+")
			out = append(out, regexp.MustCompile("^"+p+"$"))
		}
	}
	return out
}

// checkMetricsDocumented fails for any key of the run's metrics files that
// docs/metrics.md does not document.
func checkMetricsDocumented(t *testing.T, dir string) {
	t.Helper()
	patterns := documentedMetrics(t)
	for _, file := range []string{MetricsFile, WarmStartMetricsFile} {
		records, err := runlog.ReadMetrics(filepath.Join(dir, file))
		if err != nil {
			continue // no warm start
		}
		for _, r := range records {
		keys:
			for k := range r.Values {
				for _, p := range patterns {
					if p.MatchString(k) {
						continue keys
					}
				}
				t.Errorf("%s: metric %q is not in docs/metrics.md's Metrics table", file, k)
			}
		}
	}
}
