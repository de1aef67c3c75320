//go:build xla

package optim_test

import (
	"math"
	"os"
	"testing"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/optim"
)

// TestDataParallelXLA runs the data-parallel update on the XLA backend
// when it has two devices (a GPU machine, or XLA's CPU plugin with
// XLA_FLAGS=--xla_force_host_platform_device_count=2) and compares it with
// one device of the same backend. AGENTEVOLVER_XLA_BACKEND picks the
// backend (default xla:cpu); without a plugin the test is skipped.
func TestDataParallelXLA(t *testing.T) {
	config := os.Getenv("AGENTEVOLVER_XLA_BACKEND")
	if config == "" {
		config = "xla:cpu"
	}
	backend, err := model.NewBackend(config)
	if err != nil {
		t.Skipf("no XLA backend: %v", err)
	}
	defer backend.Finalize()
	if backend.NumDevices() < 2 {
		t.Skipf("%s has %d device(s)", config, backend.NumDevices())
	}
	run := func(devices int) []optim.StepMetrics {
		policy, vars := newBigram(testVocab, 3)
		u, err := optim.NewUpdater(backend, vars, policy, optim.UpdaterConfig{
			Optimizer: optim.AdamWConfig{LearningRate: 0.02, Epsilon: 1e-3}, MicroBatchSize: 4, Devices: devices, NoKLLoss: true})
		if err != nil {
			t.Fatal(err)
		}
		return updateTimes(t, u, nil, randomBatch(8, testCols, testPL, testVocab, 5), 3)
	}
	want, got := run(1), run(2)
	for i := range want {
		if math.Abs(got[i].PGLoss-want[i].PGLoss) > 1e-4 || math.Abs(got[i].GradNorm-want[i].GradNorm) > 1e-4*(1+want[i].GradNorm) {
			t.Errorf("step %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
