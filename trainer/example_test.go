package trainer_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/org/agentevolver/trainer"
)

// few keys overridden as "agentevolver train --set" would.
func ExampleTrainer_Fit() {
	cfg, err := trainer.LoadConfig(nil, []string{"trainer.rl_steps=20", "trainer.output_dir=runs/demo"})
	if err != nil {
		log.Fatal(err)
	}
	// The command line builds env.type "toolworld" from the same registry.
	t, err := trainer.New(cfg, trainer.Options{Output: os.Stdout}) // the built-in environments by env.type
	if err != nil {
		log.Fatal(err)
	}
	summary, err := t.Fit(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("validation success %.2f -> %.2f\n", summary.ValSuccessWarmStart, summary.ValSuccessFinal)
}
