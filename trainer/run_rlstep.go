package trainer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

// envTaskSource draws training tasks from the environment's split:
// consecutive slices of per-epoch permutations (seeded), so step s always
// gets the same tasks.
type envTaskSource struct {
	tasks   []agentevolver.Task
	seed    int64
	shuffle bool
}

// NextTasks returns the tasks at positions step*n .. step*n+n-1 of the
// concatenated epoch permutations.
func (s envTaskSource) NextTasks(_ context.Context, step, n int) ([]agentevolver.Task, error) {
	if len(s.tasks) == 0 {
		return nil, fmt.Errorf("%w: no training tasks", ErrConfig)
	}
	out := make([]agentevolver.Task, 0, n)
	epoch, order := -1, []int(nil)
	for i := range n {
		pos := step*n + i
		if e := pos / len(s.tasks); e != epoch {
			epoch, order = e, s.order(e) // one permutation per epoch touched
		}
		out = append(out, s.tasks[order[pos%len(s.tasks)]])
	}
	return out, nil
}

func (s envTaskSource) order(epoch int) []int {
	return epochOrder(s.seed, streamTasks, epoch, len(s.tasks), s.shuffle)
}

// Streams of epochOrder, so task order and demonstration order differ.
const (
	streamTasks = iota + 1
	streamDemos
	streamDemoExperience
)

// epochOrder is the order of n items in an epoch: a permutation drawn
// from (seed, stream, epoch), or the identity without shuffle. A pure
// function of its arguments, so a resumed run sees the same order.
func epochOrder(seed int64, stream uint64, epoch, n int, shuffle bool) []int {
	if !shuffle {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		return order
	}
	return rand.New(rand.NewPCG(uint64(seed), stream<<32|uint64(epoch))).Perm(n)
}

// rlStep runs one GRPO step: rollouts of the step's tasks, samples,
// advantages, old and reference log-probs and the policy update. It
// returns the step's metrics, which it also records, with note's outage
// cost when an outage preceded it. An outage before the update (in the
// tasks, any episode, or the advantage hook) returns an *outageAttempt:
// nothing is trained or recorded and the step may run again as it was
// (see run_outage.go for why a partly hit step is not trained).
func (r *run) rlStep(ctx context.Context, step int, note outageNote) (map[string]float64, error) {
	began := time.Now()
	src := r.hooks.Tasks
	if src == nil {
		src = envTaskSource{tasks: r.train, seed: r.cfg.Trainer.Seed, shuffle: r.cfg.Data.Shuffle}
	}
	tasks, err := src.NextTasks(ctx, step, r.cfg.Data.TrainBatchSize)
	if err != nil {
		return nil, outageOr(fmt.Errorf("tasks: %w", err), 0)
	}
	n := r.cfg.Rollout.N
	rollouts := agentflow.Expand(tasks, n)
	for i := range rollouts {
		rollouts[i].Seed = rolloutSeed(r.cfg.Trainer.Seed, phaseTrain, step, i/n, i%n)
	}
	if err := r.allocateExperience(rollouts, n, r.cfg.Experience.TrainAllocation(), phaseTrain, step); err != nil {
		return nil, err
	}
	results, failures, err := r.runEpisodes(ctx, r.runner(r.flow(r.policy, r.cfg.Rollout.Temperature)), rollouts, "rl", step+1)
	if err != nil {
		return nil, err
	}
	if err := failures.outageErr(len(rollouts)); err != nil {
		return nil, err
	}
	if err := failures.check("rl", step+1, len(rollouts), r.maxFailedRatio()); err != nil {
		return nil, err
	}
	rolloutTime := time.Since(began)

	var (
		samples  []agentevolver.Sample
		trajs    []agentevolver.Trajectory
		groupKey []string
		outcomes []float64
		success  []float64
		turns    []float64
		madness  []float64
	)
	for _, res := range results {
		tr := res.Trajectory
		outcomes = append(outcomes, tr.Reward.Outcome)
		success = append(success, tr.Reward.SuccessRate)
		madness = append(madness, tr.Reward.Madness)
		turns = append(turns, float64(countRole(tr.Steps, agentevolver.RoleAssistant)))
		for _, s := range res.Samples {
			samples = append(samples, s)
			trajs = append(trajs, tr)
			// GRPO groups by the task's index in the batch, so two
			// synthetic tasks sharing a seed task id stay apart (the
			// reference groups by task_id; see reference §8).
			groupKey = append(groupKey, tr.DataID)
		}
	}
	metrics := map[string]float64{
		"reward/mean":      mean(outcomes),
		"reward/success":   mean(success),
		"episode/turns":    mean(turns),
		"episode/madness":  mean(madness),
		"rollout/episodes": float64(len(results)),
		"rollout/samples":  float64(len(samples)),
		"time/rollout_s":   rolloutTime.Seconds(),
	}
	failures.addMetrics(metrics, "rollout/failed")
	note.addMetrics(metrics, "rollout/skipped")
	if len(samples) == 0 {
		return nil, fmt.Errorf("%w: none of %d finished episodes has a policy turn to train on", ErrNoSamples, len(results))
	}
	finished := make([]agentevolver.Trajectory, len(results))
	for i, res := range results {
		finished[i] = res.Trajectory
	}
	r.injectionMetrics(metrics, finished)
	if r.mixture != nil {
		mixtureMetrics(metrics, tasks, results)
	}
	// The pool learns from the step while the policy updates (the
	// reference's asynchronous summary), waited for below.
	pending := r.startPoolUpdate(ctx, step+1, finished)
	upd, err := r.update(ctx, step, samples, trajs, groupKey)
	if err != nil {
		if oa, ok := errors.AsType[*outageAttempt](err); ok {
			oa.episodes = len(rollouts) // the advantage hook's outage discards them all
		}
		return nil, err
	}
	for k, v := range upd {
		metrics[k] = v
	}
	pending.finish(r, step+1, metrics)
	r.updateMetrics(metrics)
	r.remoteMetrics(metrics)
	if r.hooks.Recorder != nil {
		if err := r.hooks.Recorder.Record(ctx, step, finished); err != nil {
			return nil, fmt.Errorf("recorder: %w", err)
		}
	}
	metrics["time/step_s"] = time.Since(began).Seconds()
	r.state.Totals.FailedEpisodes += failures.failed
	r.log.Info("trainer: RL step", "step", step+1, "reward", metrics["reward/mean"], "success", metrics["reward/success"],
		"samples", len(samples), "seconds", metrics["time/step_s"])
	return metrics, r.record(step+1, metrics)
}

// maxFailedRatio is trainer.max_failed_ratio with its default.
func (r *run) maxFailedRatio() float64 {
	return cmp.Or(r.cfg.Trainer.MaxFailedRatio, DefaultMaxFailedRatio)
}

// taskGroup is the GRPO group of a sample: its task (data id), or, for a
// filler row that pads the batch, a group of its own (filler > 0).
type taskGroup struct {
	dataID string
	filler int
}

// episodeGroup is the episode of a per-call sample within its task group.
type episodeGroup struct {
	task      taskGroup
	rolloutID string
}

// update turns samples into a batch and takes the policy update.
func (r *run) update(ctx context.Context, step int, samples []agentevolver.Sample, trajs []agentevolver.Trajectory, groupKey []string) (map[string]float64, error) {
	began := time.Now()
	p, err := optim.PadSamples(samples, r.pad)
	if err != nil {
		return nil, err
	}
	rows := len(p.InputIDs) // samples plus bucket filler rows
	outcomes := make([]float64, rows)
	keys := make([]taskGroup, rows)
	var respTokens []float64
	for i := range rows {
		if i < len(samples) {
			outcomes[i] = samples[i].RewardScores.Outcome
			keys[i] = taskGroup{dataID: groupKey[i]}
			respTokens = append(respTokens, float64(countOnes(samples[i].ResponseLossMask)))
		} else {
			keys[i] = taskGroup{filler: i + 1} // a singleton group: advantage 0
		}
	}
	rewards := placeRewards(p.RespLen, len(p.LossMask[0]), outcomes)
	groups, numGroups := objective.GroupIndex(keys)
	grpo := objective.GRPOConfig{NoStdNorm: !r.cfg.Algorithm.NormAdvByStdInGRPO}
	var adv [][]float32
	if r.cfg.Rollout.ContextTemplate == contextmgr.StrategyPerCall && r.cfg.Rollout.PerCall.GroupWeighting != GroupWeightingCall {
		// One sample per call: statistics over episodes, each weighing
		// the same (ComputeEpisodeGRPOAdvantages).
		epKeys := make([]episodeGroup, rows)
		for i := range rows {
			epKeys[i] = episodeGroup{task: keys[i]}
			if i < len(samples) {
				epKeys[i].rolloutID = trajs[i].RolloutID
			}
		}
		episodes, numEpisodes := objective.GroupIndex(epKeys)
		adv, err = objective.ComputeEpisodeGRPOAdvantages(r.backend, rewards, p.LossMask, groups, numGroups, episodes, numEpisodes, grpo)
	} else {
		adv, err = objective.ComputeGRPOAdvantages(r.backend, rewards, p.LossMask, groups, numGroups, grpo)
	}
	if err != nil {
		return nil, fmt.Errorf("advantages: %w", err)
	}
	var hookMetrics map[string]float64
	if r.hooks.Advantages != nil {
		n := len(samples)
		got, err := r.hooks.Advantages.Advantages(ctx, AdvantageInput{
			Step: step, Samples: samples, Trajectories: trajs, LossMask: p.LossMask[:n], Groups: groups[:n], GRPO: adv[:n],
			Rewards: rewards[:n], StepIDs: p.StepIDs[:n],
		})
		if err != nil {
			return nil, outageOr(fmt.Errorf("advantage hook: %w", err), 0)
		}
		if custom := got.Advantages; custom != nil {
			if len(custom) != n {
				return nil, fmt.Errorf("advantage hook: %d rows for %d samples", len(custom), n)
			}
			for i := range n {
				if len(custom[i]) != len(adv[i]) {
					return nil, fmt.Errorf("advantage hook: row %d has %d columns, want %d", i, len(custom[i]), len(adv[i]))
				}
				for j, v := range custom[i] {
					if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
						return nil, fmt.Errorf("advantage hook: row %d column %d is %v", i, j, v)
					}
				}
				adv[i] = custom[i]
			}
		}
		hookMetrics = got.Metrics
	}
	scores := map[string][]float64{}
	for i := range samples {
		scores[keys[i].dataID] = append(scores[keys[i].dataID], outcomes[i])
	}
	silent := r.silence.observe(r.log, step+1, scores, adv[:len(samples)], p.LossMask[:len(samples)])
	batch := &optim.Batch{Tokens: p.Tokens, LossMask: p.LossMask, Advantages: adv, ExpMask: expMask(samples, len(p.LossMask), len(p.LossMask[0]))}
	advantagesTime := time.Since(began)
	phase := time.Now()
	// An on-policy update computes the old log-probs itself, in its own
	// forward pass, unless some rows take their rollout's instead.
	behaviour := r.behaviourLogProbs() && batch.ExpMask != nil
	onPolicy := r.updater.OnPolicy(rows) && !behaviour
	var oldLogProbsTime time.Duration
	var diffMean, diffMax float64
	recomputedRows := 0
	if !onPolicy {
		if batch.OldLogProbs, err = r.updater.LogProbs(ctx, &batch.Tokens); err != nil {
			return nil, fmt.Errorf("old log-probs: %w", err)
		}
		oldLogProbsTime = time.Since(phase)
		// Compared before the stripped rows take their rollout's.
		diffMean, diffMax = rolloutLogProbDiff(samples, batch.OldLogProbs)
		if behaviour {
			recomputedRows = useBehaviourLogProbs(samples, batch.OldLogProbs)
		}
	}
	phase = time.Now()
	if r.cfg.Actor.UseKLLoss {
		if batch.RefLogProbs, err = r.ref.LogProbs(ctx, &batch.Tokens); err != nil {
			return nil, fmt.Errorf("reference log-probs: %w", err)
		}
	}
	referenceTime := time.Since(phase)
	phase = time.Now()
	if err := r.updater.SetLearningRate(warmupLR(r.cfg.Actor.LR, r.cfg.Actor.LRWarmupSteps, step)); err != nil {
		return nil, err
	}
	steps, err := r.updater.Update(ctx, batch)
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	if onPolicy { // Update filled in the old log-probs
		diffMean, diffMax = rolloutLogProbDiff(samples, batch.OldLogProbs)
	}
	// The step's wall time, split: time/update_s is everything after the
	// rollouts; its parts are the batch and advantages (the advantage hook
	// included), old and reference log-probs and the optimiser steps.
	out := map[string]float64{
		MetricNoSignal:             b2f(silent),
		"response/policy_tokens":   mean(respTokens),
		"batch/rows":               float64(len(samples)),
		"batch/width":              float64(len(p.InputIDs[0])),
		"time/update_s":            time.Since(began).Seconds(),
		"time/advantages_s":        advantagesTime.Seconds(),
		"time/old_log_probs_s":     oldLogProbsTime.Seconds(),
		"time/reference_s":         referenceTime.Seconds(),
		"time/optimizer_s":         time.Since(phase).Seconds(),
		"rollout/logprob_diff":     diffMean,
		"rollout/logprob_diff_max": diffMax,
	}
	if batch.ExpMask != nil {
		out["actor/exp_recomputed_rows"] = float64(recomputedRows)
	}
	sums := map[string]float64{}
	for _, s := range steps {
		for k, v := range s.Map() {
			sums[k] += v
		}
	}
	for k, v := range sums {
		out[k] = v / float64(len(steps))
	}
	for k, v := range hookMetrics {
		if _, clash := out[k]; !clash {
			out[k] = v
		}
	}
	return out, nil
}

// expMask is the batch's HET experience mask, rows x width: ones on the
// rows of samples whose injected experience was stripped for training
// (Sample.ExpMask), which train with the off-policy clip range; nil when
// there are none, so the loss takes its on-policy-only form.
func expMask(samples []agentevolver.Sample, rows, width int) [][]float32 {
	var m [][]float32
	for i, s := range samples {
		if !s.ExpMask {
			continue
		}
		if m == nil {
			m = make([][]float32, rows)
			for r := range m {
				m[r] = make([]float32, width)
			}
		}
		for j := range m[i] {
			m[i][j] = 1
		}
	}
	return m
}

// useBehaviourLogProbs sets the old log-probs of the trained tokens of
// every sample whose experience was stripped (Sample.ExpMask) to the ones
// the policy reported while it sampled them with the experience in its
// prompt, so that the HET ratio weighs the stripped prompt against the
// behaviour policy (see ActorConfig.OffPolicyOldLogProbs). It returns the
// number of such samples that had no rollout log-probs and keep the
// recomputed ones.
func useBehaviourLogProbs(samples []agentevolver.Sample, old [][]float32) (recomputed int) {
	for i, s := range samples {
		if !s.ExpMask {
			continue
		}
		if len(s.ResponseLogProbs) == 0 {
			recomputed++
			continue
		}
		for j, lp := range s.ResponseLogProbs {
			if j >= len(s.ResponseLossMask) || s.ResponseLossMask[j] == 0 || j >= len(old[i]) {
				continue
			}
			old[i][j] = float32(lp)
		}
	}
	return recomputed
}

// rolloutLogProbDiff compares the log-probs the policy reported while
// sampling with the ones the trainer recomputes for the same tokens: a
// large difference means the training tokens are not the sampled ones (a
// tokenisation or alignment fault) or the sampler's distribution differs
// from the trained one.
func rolloutLogProbDiff(samples []agentevolver.Sample, old [][]float32) (mean, maxDiff float64) {
	var sum float64
	n := 0
	for i, s := range samples {
		for j, lp := range s.ResponseLogProbs {
			if j >= len(s.ResponseLossMask) || s.ResponseLossMask[j] == 0 || j >= len(old[i]) {
				continue
			}
			d := math.Abs(lp - float64(old[i][j]))
			sum += d
			maxDiff = max(maxDiff, d)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), maxDiff
}

// warmupLR is the learning rate of RL step (0-based) under a linear
// warm-up over warmup steps.
func warmupLR(lr float64, warmup, step int) float64 {
	if warmup <= 0 || step >= warmup {
		return lr
	}
	return lr * float64(step+1) / float64(warmup)
}

func countRole(msgs []agentevolver.Message, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

func countOnes(xs []int) int {
	n := 0
	for _, x := range xs {
		if x != 0 {
			n++
		}
	}
	return n
}
