package pretrain

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/tokenizer"
)

// TestReplayTooLongLater: an expert episode whose first prompt fits but
// whose later turns run past the context window is reported as
// errEpisodeTruncated (examples are then dropped, or the episode left
// out), not as an expert that failed, which would stop the run.
func TestReplayTooLongLater(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Corpus.Worlds, cfg.Corpus.TasksPerSplit = 10, 120
	c, err := newCorpus(ctx, cfg.Corpus, 3, DefaultSystemPrompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.text(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.TrainBPE(text, tokenizer.TrainOptions{VocabSize: 400, Pattern: tokenizer.WordPattern})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := tok.ChatTemplate()
	if err != nil {
		t.Fatal(err)
	}
	replayer := func(maxLen int) *replayer {
		t.Helper()
		rp, err := newReplayer(c.env, contextmgr.Config{Tokenizer: tok, Template: tmpl, MaxModelLen: maxLen, ResponseLength: 32,
			MaxEnvTokens: 256, MaxPromptLen: maxLen - 32}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rp.close)
		return rp
	}
	// A task of several calls and its episode's length in a roomy window.
	var id string
	var first, whole int
	roomy := replayer(4096)
	for _, cand := range c.train {
		acts, err := c.env.Solve(cand)
		if err != nil {
			t.Fatal(err)
		}
		if len(acts) < 4 {
			continue
		}
		res, err := roomy.episode(ctx, cand, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Samples[0]
		id, first, whole = cand, len(s.PromptIDs), len(s.PromptIDs)+len(s.ResponseIDs)
		break
	}
	if id == "" {
		t.Fatal("no task of four calls")
	}
	// Room for the first prompt and a response, not for the whole episode.
	_, err = replayer(first+32+(whole-first)/4).episode(ctx, id, nil)
	if !errors.Is(err, errEpisodeTruncated) || !tooLong(err) {
		t.Fatalf("episode of %d tokens (first prompt %d) in a window of %d: %v", whole, first, first+32+(whole-first)/4, err)
	}
}
