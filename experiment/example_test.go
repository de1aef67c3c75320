package experiment_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/experiment"
	"github.com/org/agentevolver/trainer"
)

// Two arms, two seeds, the same budget: Run trains every arm × seed and
// compares their final validation success. A stand-in for the trainer
// writes the metrics log a real run would, so the example runs instantly;
// leave Train nil to train for real.
func ExampleRun() {
	f, err := experiment.Parse([]byte(`
name: demo
seeds: [1, 2]
steps: 10
arms:
  - name: grpo
  - name: grpo-std
    config: {algorithm: {norm_adv_by_std_in_grpo: true}}
`), ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	root, err := os.MkdirTemp("", "experiment-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)

	train := func(ctx context.Context, cfg trainer.Config) error {
		// Validation success before RL and after the last step.
		final := 0.3 + 0.1*float64(cfg.Trainer.Seed)
		if cfg.Algorithm.NormAdvByStdInGRPO {
			final -= 0.05
		}
		log := fmt.Sprintf(`{"step":0,"time":"2025-01-01T00:00:00Z","val/success":0.2}
{"step":%d,"time":"2025-01-01T00:01:00Z","val/success":%g}
`, cfg.Trainer.RLSteps, final)
		if err := os.MkdirAll(cfg.Trainer.OutputDir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(cfg.Trainer.OutputDir, "metrics.jsonl"), []byte(log), 0o644)
	}

	c, err := experiment.Run(context.Background(), f, experiment.Options{OutputRoot: root, Train: train})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range c.Arms {
		fmt.Printf("%-8s finals %.2f: %.3f ± %.3f\n", a.Name, a.Finals(), *a.FinalMean, *a.FinalStd)
	}
	_, err = os.Stat(filepath.Join(root, "demo", experiment.ComparisonFile))
	fmt.Println("comparison.json written:", err == nil)
	// Output:
	// grpo     finals [0.40 0.50]: 0.450 ± 0.071
	// grpo-std finals [0.35 0.45]: 0.400 ± 0.071
	// comparison.json written: true
}
