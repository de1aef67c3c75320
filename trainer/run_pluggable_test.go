package trainer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/runlog"
)

// stepMetrics returns the metrics of the last RL step of a run.
func stepMetrics(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	records, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]float64
	for _, r := range records {
		if _, ok := r.Values["rollout/episodes"]; ok {
			out = r.Values
		}
	}
	if out == nil {
		t.Fatal("no RL step in the metrics")
	}
	return out
}

// TestFitUsesRewardCalculator checks that Options.Reward scores training
// episodes in place of the environment's evaluation.
func TestFitUsesRewardCalculator(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := echoConfig(t)
	cfg.Trainer.RLSteps = 1
	reward := agentflow.RewardFunc(func(context.Context, agentflow.RewardInput) (float64, string, error) {
		return 0.25, "a quarter", nil
	})
	if _, err := mustNew(t, cfg, Options{Env: echoManager(t, &echoEnv{}), Reward: reward}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := stepMetrics(t, cfg.Trainer.OutputDir)["reward/mean"]; got != 0.25 {
		t.Errorf("reward/mean = %v, want the calculator's 0.25", got)
	}
}

// TestFitContextTemplates trains one step with every context manager the
// configuration can name.
func TestFitContextTemplates(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	for _, name := range []string{contextmgr.StrategyLinear, contextmgr.StrategyLinearThink, contextmgr.StrategySelfClip, contextmgr.StrategyMemory, contextmgr.StrategyPerCall} {
		t.Run(name, func(t *testing.T) {
			cfg := echoConfig(t)
			cfg.Trainer.RLSteps = 1
			cfg.Rollout.ContextTemplate = name
			cfg.Rollout.UseQwen3 = true
			cfg.Rollout.MaxModelLen = 512
			cfg.Data.MaxPromptLength = 508 // per-turn strategies need the whole window
			if _, err := mustNew(t, cfg, Options{Env: echoManager(t, &echoEnv{})}).Fit(context.Background()); err != nil {
				t.Fatal(err)
			}
			if m := stepMetrics(t, cfg.Trainer.OutputDir); m["rollout/samples"] < 1 || m["rollout/failed"] != 0 {
				t.Errorf("metrics %v", m)
			}
		})
	}
}

// recorderFunc adapts a function to TrajectoryRecorder.
type recorderFunc func(ctx context.Context, step int, trajectories []agentevolver.Trajectory) error

func (f recorderFunc) Record(ctx context.Context, step int, trajectories []agentevolver.Trajectory) error {
	return f(ctx, step, trajectories)
}

// TestFitInterruptedKeepsWork checks that cancelling Fit (Ctrl-C under
// signal.NotifyContext) leaves a checkpoint, the policy and the plot, and
// that Resume finishes the run.
func TestFitInterruptedKeepsWork(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := echoConfig(t)
	cfg.Trainer.RLSteps = 3
	cfg.Trainer.SaveFreq = 0
	env := echoManager(t, &echoEnv{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopAfterFirst := recorderFunc(func(_ context.Context, step int, _ []agentevolver.Trajectory) error {
		if step == 0 {
			cancel()
		}
		return nil
	})
	_, err := mustNew(t, cfg, Options{Env: env, Hooks: Hooks{Recorder: stopAfterFirst}}).Fit(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for _, name := range []string{filepath.Join(CheckpointDir, "step_000001", checkpointState), FinalModelDir, PlotFile} {
		if _, err := os.Stat(filepath.Join(cfg.Trainer.OutputDir, name)); err != nil {
			t.Errorf("after the interrupt: %v", err)
		}
	}
	s, err := mustNew(t, cfg, Options{Env: env, Resume: true}).Fit(context.Background())
	if err != nil || s.RLSteps != 3 {
		t.Fatalf("resume: %+v, %v", s, err)
	}
}

// TestFitLogProbAlignmentOnCutReplies checks that the log-probs recorded
// while sampling equal the trainer's recomputed ones on every trained
// token of a custom multi-turn environment whose replies are cut at
// response_length (the end-of-turn token the template appends to a cut
// reply was once trained with a log-prob the sampler never produced).
func TestFitLogProbAlignmentOnCutReplies(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := echoConfig(t)
	cfg.Trainer.RLSteps = 2
	cfg.Rollout.ResponseLength = 6
	cfg.Rollout.MaxSteps = 3
	cfg.Rollout.Temperature = 1
	cfg.Data.TrainBatchSize = 4
	env := &echoEnv{turns: 3}
	if _, err := mustNew(t, cfg, Options{Env: echoManager(t, env)}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := stepMetrics(t, cfg.Trainer.OutputDir)
	if d := m["rollout/logprob_diff_max"]; !(d < 1e-3) {
		t.Errorf("rollout/logprob_diff_max = %v, want < 1e-3", d)
	}
	if m["episode/turns"] < 2 {
		t.Errorf("episode/turns = %v: the test needs multi-turn episodes", m["episode/turns"])
	}
	t.Logf("logprob_diff_max %.3g, mean %.3g, turns %.2f", m["rollout/logprob_diff_max"], m["rollout/logprob_diff"], m["episode/turns"])
}

// tipInjector prepends a fixed experience to the task, as an experience
// pool would, counting its calls.
type tipInjector struct{ calls *atomic.Int64 }

func (in tipInjector) Inject(_ context.Context, _ agentevolver.Task, msgs []agentevolver.Message) ([]agentevolver.Message, []string, error) {
	in.calls.Add(1)
	exp := strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", "call one tool per turn", 1)
	out := slices.Clone(msgs)
	out[len(out)-1].Content = exp + out[len(out)-1].Content
	return out, []string{exp}, nil
}

// TestFitExperienceModes runs the method presets of reference §5.8 with
// an injector: the exp_manager modes decide which rollouts get experience
// (baseline none, the others half of them) and whether it is stripped for
// training, and stripped samples train with the off-policy clip range,
// which the step's actor/exp_token_share and actor/off_pg_loss show.
func TestFitExperienceModes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model four times")
	}
	tests := []struct {
		name       string
		exp        experience.Config
		wantCalls  int64 // injections: 2 tasks x 2 rollouts in the one RL step
		offPolicy  bool  // some loss tokens off-policy
		allOnShare bool
	}{
		{"baseline", experience.Config{TrainRolloutMode: "woexp", ValRolloutMode: "woexp", TrainSampleMode: "alldiscard"}, 0, false, true},
		{"EC", experience.Config{TrainRolloutMode: "mixed", ValRolloutMode: "woexp", RolloutRatio: 0.5, TrainSampleMode: "allkeep"}, 2, false, true},
		{"EI", experience.Config{TrainRolloutMode: "mixed", ValRolloutMode: "woexp", RolloutRatio: 0.5, TrainSampleMode: "alldiscard"}, 2, true, false},
		{"HET", experience.Config{TrainRolloutMode: "mixed", ValRolloutMode: "woexp", RolloutRatio: 0.5, TrainSampleMode: "hybrid", TrainSampleKeepRatio: 0.5}, 2, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tinyConfig(t)
			cfg.WarmStart.Steps = 1
			cfg.Trainer.RLSteps = 1
			cfg.Experience = tt.exp
			var calls atomic.Int64
			// Advantage 1 on every trained token, so that every token has a loss.
			ones := advantageFunc(func(in AdvantageInput) [][]float32 { return in.LossMask })
			_, err := mustNew(t, cfg, Options{Hooks: Hooks{Experience: tipInjector{&calls}, Advantages: ones}}).Fit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("%d injections, want %d", got, tt.wantCalls)
			}
			checkMetricsDocumented(t, cfg.Trainer.OutputDir)
			records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range records {
				if _, ok := r.Value("reward/mean"); !ok {
					continue
				}
				share, _ := r.Value("actor/exp_token_share")
				off, _ := r.Value("actor/off_pg_loss")
				if tt.offPolicy && (!(share > 0 && share < 1) || off == 0) {
					t.Errorf("exp token share %v, off-policy loss %v; want a share in (0, 1) and a loss", share, off)
				}
				// Stripped samples divide by the behaviour policy's
				// log-probs, so even the first update's ratio is not 1
				// (ppo_kl is exactly 0 when every old log-prob is the
				// recomputed one).
				kl, _ := r.Value("actor/ppo_kl")
				recomputed, _ := r.Value("actor/exp_recomputed_rows")
				if tt.offPolicy && (kl == 0 || recomputed != 0) {
					t.Errorf("ppo_kl %v with %v rows recomputed; want the rollout's log-probs as old ones", kl, recomputed)
				}
				if !tt.offPolicy && kl != 0 {
					t.Errorf("ppo_kl %v, want 0: nothing stripped, old log-probs are the current ones", kl)
				}
				if tt.allOnShare && (share != 0 || off != 0) {
					t.Errorf("exp token share %v, off-policy loss %v; want 0 (nothing stripped)", share, off)
				}
			}
		})
	}
}

// advantageFunc adapts a function to AdvantageEstimator.
type advantageFunc func(in AdvantageInput) [][]float32

func (f advantageFunc) Advantages(_ context.Context, in AdvantageInput) (AdvantageOutput, error) {
	return AdvantageOutput{Advantages: f(in)}, nil
}
