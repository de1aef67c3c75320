package trainer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/tokenizer"
)

// TokenizerFromEnv is the Config.Model.Tokenizer value that learns a
// byte-level BPE vocabulary from the built-in environment's own text
// (system prompt, training instructions, expert actions and
// observations). A policy trained from scratch then sees names and API
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
	if env.tw == nil {
		return nil, fmt.Errorf("%w: model.tokenizer %q needs the built-in environment", ErrConfig, TokenizerFromEnv)
	}
	corpus, err := envCorpus(ctx, env.tw, cfg)
	if err != nil {
		return nil, err
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

// envCorpus is the text of the training split: the system prompt, each
// instruction, and the expert's actions and observations.
func envCorpus(ctx context.Context, tw *toolworld.Env, cfg Config) ([]string, error) {
	ids, err := tw.TaskIDs(ctx, cfg.Data.TrainSplit, nil)
	if err != nil {
		return nil, err
	}
	var corpus []string
	for i, id := range ids {
		inst, err := tw.New(ctx, id, fmt.Sprintf("corpus-%d", i), nil)
		if err != nil {
			return nil, err
		}
		st, err := inst.InitState(ctx, nil)
		if err != nil {
			inst.Close()
			return nil, err
		}
		for j, m := range st.State {
			if j > 0 || i == 0 { // the system prompt once
				corpus = append(corpus, m.Content)
			}
		}
		actions, err := tw.Solve(id)
		if err != nil {
			inst.Close()
			return nil, err
		}
		for _, a := range actions {
			res, err := inst.Step(ctx, a, nil)
			if err != nil {
				inst.Close()
				return nil, err
			}
			corpus = append(corpus, a.Content)
			for _, m := range res.State {
				corpus = append(corpus, m.Content)
			}
		}
		inst.Close()
	}
	return corpus, nil
}

// saveTokenizerBeside copies the run's learned tokenizer into a saved
// policy directory, so the directory is a complete Hugging Face model.
func (r *run) saveTokenizerBeside(dir string) error {
	bpe, ok := r.tok.(*tokenizer.BPE)
	if !ok || r.cfg.Model.Tokenizer != TokenizerFromEnv {
		return nil
	}
	if err := bpe.Save(dir); err != nil {
		return fmt.Errorf("trainer: save tokenizer with %s: %w", dir, err)
	}
	return nil
}
