package fleet

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver/llm"
)

// TestPublisherKeepsFleetOnVersion checks that a Publisher exports and
// publishes once per version, before that version's first request, names
// every request after the current adapter, and keeps only the newest
// exported directories.
func TestPublisherKeepsFleetOnVersion(t *testing.T) {
	s := newFakeServer(t)
	f := newTestFleet(t, Config{OwnedPrefix: "run-step_"}, s)
	dir := t.TempDir()
	version := 0
	var exports []string
	p, err := NewPublisher(PublisherConfig{
		Fleet: f, Dir: dir, Prefix: "run", Keep: 2,
		Version: func() int { return version },
		Export: func(_ context.Context, d string) error {
			exports = append(exports, filepath.Base(d))
			return os.MkdirAll(d, 0o755)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	chat := func() {
		t.Helper()
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if _, err := p.Chat(context.Background(), hello, llm.ChatOptions{MaxTokens: 2}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	for v := range 4 {
		version = v
		chat()
	}
	if want := []string{"step_000000", "step_000001", "step_000002", "step_000003"}; !slices.Equal(exports, want) {
		t.Errorf("exports %v, want one per version %v", exports, want)
	}
	s.mu.Lock()
	loads, chats := slices.Clone(s.loads), slices.Clone(s.chats)
	s.mu.Unlock()
	if len(loads) != 4 || !strings.HasPrefix(loads[3], "run-step_000003-") {
		t.Errorf("loads %v, want one per version named run-step_NNNNNN-...", loads)
	}
	if last := chats[len(chats)-1]; last != loads[3] {
		t.Errorf("the last request named %q, want the current adapter %q", last, loads[3])
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, e := range entries {
		kept = append(kept, e.Name())
	}
	if want := []string{"step_000002", "step_000003"}; !slices.Equal(kept, want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
	if p.TakePublishSeconds() <= 0 || p.TakePublishSeconds() != 0 {
		t.Error("publish time not reported once")
	}
	if _, err := NewPublisher(PublisherConfig{Fleet: f, Dir: dir}); err == nil {
		t.Error("a publisher without Version and Export was made")
	}
}
