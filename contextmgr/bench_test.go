package contextmgr_test

import (
	"context"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
)

// BenchmarkLinearEpisode records a 30-turn episode with 500-byte observations
// and tokenises it into its sample.
func BenchmarkLinearEpisode(b *testing.B) {
	obs := strings.Repeat("observation text ", 30)
	replies := make([]string, 30)
	for i := range replies {
		replies[i] = "call tool(" + strings.Repeat("x", 40) + ")"
	}
	for b.Loop() {
		cm, err := contextmgr.NewLinear(testConfig())
		if err != nil {
			b.Fatal(err)
		}
		if err := cm.Init([]agentevolver.Message{system("sys"), user("task")}); err != nil {
			b.Fatal(err)
		}
		model := &scriptedModel{replies: append([]string(nil), replies...), ids: true}
		for range replies {
			prompt, err := cm.Prompt()
			if err != nil {
				b.Fatal(err)
			}
			out, _ := model.Chat(context.Background(), prompt, llmOpts())
			if err := cm.RecordLLM(context.Background(), prompt, out); err != nil {
				b.Fatal(err)
			}
			if err := cm.RecordEnv(user(obs)); err != nil {
				b.Fatal(err)
			}
		}
		cm.Finish()
		if _, err := cm.Samples(agentevolver.Trajectory{}); err != nil {
			b.Fatal(err)
		}
	}
}
