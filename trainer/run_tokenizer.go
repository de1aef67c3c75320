package trainer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/tokenizer"
)

// TokenizerFromEnv is the Config.Model.Tokenizer value that learns a
// byte-level BPE vocabulary from the environment's own text
// (envservice.CorpusProvider; toolworld's is its system prompt, training
// instructions, expert actions and observations). A policy trained from scratch then sees names and API
// calls as a few tokens instead of one token per byte, which makes copying
// them far easier to learn and episodes several times shorter.
const TokenizerFromEnv = "env"

// TokenizerDir holds the run's learned tokenizer (Hugging Face format); it
// is also copied next to every saved policy.
const TokenizerDir = "tokenizer"

// envTokenizer returns the run's learned tokenizer: the one saved in the
// run directory when resuming, else one trained on the environment's text
// and saved there.
func envTokenizer(ctx context.Context, cfg Config, env *environment, dir string, resume bool) (*tokenizer.BPE, error) {
	path := filepath.Join(dir, TokenizerDir)
	if resume {
		tok, err := tokenizer.Load(path)
		if err == nil {
			return tok, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("trainer: learned tokenizer: %w", err)
		}
	}
	cp, ok := env.impl.(envservice.CorpusProvider)
	if !ok {
		return nil, fmt.Errorf("%w: model.tokenizer %q needs an environment with a text corpus (envservice.CorpusProvider)", ErrConfig, TokenizerFromEnv)
	}
	corpus, err := cp.Corpus(ctx, cfg.Data.TrainSplit)
	if err != nil {
		return nil, fmt.Errorf("trainer: environment corpus: %w", err)
	}
	tok, err := tokenizer.TrainBPE(corpus, tokenizer.TrainOptions{VocabSize: cfg.Model.TokenizerVocab})
	if err != nil {
		return nil, fmt.Errorf("trainer: learn tokenizer: %w", err)
	}
	if err := tok.Save(path); err != nil {
		return nil, fmt.Errorf("trainer: save tokenizer: %w", err)
	}
	return tok, nil
}
