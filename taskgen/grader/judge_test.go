package grader

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/llm"
)

// newJudge builds the named grader over model as a *Judge.
func newJudge(t *testing.T, name string, model llm.ChatModel, mutate func(*Config)) *Judge {
	t.Helper()
	cfg := Config{Model: model}
	if mutate != nil {
		mutate(&cfg)
	}
	g, err := New(name, cfg)
	if err != nil {
		t.Fatalf("New(%q): %v", name, err)
	}
	j, ok := g.(*Judge)
	if !ok {
		t.Fatalf("New(%q) = %T, want *Judge", name, g)
	}
	return j
}

// bandPieces are what every banded prompt must say (reference §4.8).
var bandPieces = []string{
	"### Ground Rules", "Judge only what the trajectory shows", "alternative methods", "3 or more times",
	"Relevance Gate", "**score is 0**", "Repetition Gate", "**final score must be at most 20**",
	"Goal Achievement", "Reference Solution", "paginated", "Further Deductions", "Execution errors",
	"API documentation are acceptable", "the score must be 60-100", "the score must be 0-40",
	"Scores from 41 to 59 are forbidden", "never 41-59", "**detailed reasoning analysis**", "<reward>75</reward>",
	"** User Task **\n" + testQuery, "** Agent Trajectory (STEP-ACTION-OBSERVATION) **\n>>> STEP 0 <<<",
	">>> STEP 1 <<<\n<|ACTION|>\nmessages.send", "<|OBSERVATION|>\nsent\n<|END|>",
}

func TestJudgePrompts(t *testing.T) {
	const constraint = "Keep the average score around 0.3000 (+-0.2)"
	tests := []struct {
		name        string
		groundTruth string
		requests    int
		messages    int
		maxTokens   int
		want        []string // in the joined request
		wantNot     []string
	}{
		{NameLLM, testGroundTruth, 1, 2, DefaultJudgeMaxTokens,
			[]string{"Query: " + testQuery + "\n" + dialogueHeader + ">>> STEP 0 <<<", "<|OBSERVATION|>\n[12.5, 7.5, 30]\n<|END|>", rubricLLM, "FORBIDDEN: scores from 41 to 59"},
			[]string{testGroundTruth, "SYSTEM:", "shop"}},
		{NameAvgLLM, testGroundTruth, 3, 2, DefaultJudgeMaxTokens,
			[]string{"Query: " + testQuery, rubricLLM}, []string{testGroundTruth}},
		{NameLLMGT, testGroundTruth, 1, 2, DefaultJudgeMaxTokens,
			[]string{dialogueHeader + "SYSTEM: You are an agent in a shop.\n\nUSER: " + testQuery + "\n\nASSISTANT: orders.list(limit=3)", "USER: sent", testGroundTruth, "**Reference Solution**", "MUST be counted as achieved"},
			[]string{NoReferenceSolution}},
		{NameLLMGT, "", 1, 2, DefaultJudgeMaxTokens, []string{NoReferenceSolution}, nil},
		{NameLLMBinary, "", 1, 1, DefaultBandedMaxTokens,
			append([]string{"** Reference Solution **\n" + NoReferenceSolution, constraint, "average of the scores you gave to samples was 0.3000"}, bandPieces...),
			[]string{testGroundTruth}},
		{NameLLMBinaryNoConstraint, testGroundTruth, 1, 1, DefaultBandedMaxTokens,
			append([]string{NoReferenceSolution}, bandPieces...), []string{testGroundTruth, "average"}},
		{NameLLMBinaryGT, testGroundTruth, 1, 1, DefaultBandedMaxTokens,
			append([]string{"** Reference Solution **\n" + testGroundTruth, constraint}, bandPieces...), []string{NoReferenceSolution}},
		{NameLLMBinaryGTNoConstraint, testGroundTruth, 1, 1, DefaultBandedMaxTokens,
			append([]string{"** Reference Solution **\n" + testGroundTruth}, bandPieces...), []string{NoReferenceSolution, "average"}},
		{NameAvgLLMBinaryGT, testGroundTruth, 3, 1, DefaultBandedMaxTokens,
			// Later calls may see the means the first one moved.
			append([]string{testGroundTruth, "Keep the average score around 0."}, bandPieces...), nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/gt=%v", tt.name, tt.groundTruth != ""), func(t *testing.T) {
			model := replying("Looks right.\n<reward>80</reward>")
			j := newJudge(t, tt.name, model, nil)
			score, _, err := j.CalculateReward(context.Background(), episode(tt.name, tt.groundTruth))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(score-0.8) > 1e-12 {
				t.Errorf("score = %v, want 0.8", score)
			}
			if got := int(model.calls.Load()); got != tt.requests {
				t.Fatalf("%d requests, want %d", got, tt.requests)
			}
			for i := range tt.requests {
				req := model.request(i)
				if len(req) != tt.messages {
					t.Fatalf("request %d has %d messages, want %d", i, len(req), tt.messages)
				}
				var all []string
				for _, m := range req {
					if m.Role != agentevolver.RoleUser {
						t.Errorf("request %d: role %q, want user", i, m.Role)
					}
					all = append(all, m.Content)
				}
				text := strings.Join(all, "\n")
				for _, w := range tt.want {
					if !strings.Contains(text, w) {
						t.Errorf("request %d lacks %q", i, w)
					}
				}
				for _, w := range tt.wantNot {
					if strings.Contains(text, w) {
						t.Errorf("request %d contains %q", i, w)
					}
				}
				opts := model.opts[i]
				if opts.Temperature == nil || *opts.Temperature != DefaultTemperature || opts.MaxTokens != tt.maxTokens {
					t.Errorf("options %+v, want temperature %v and max tokens %d", opts, DefaultTemperature, tt.maxTokens)
				}
			}
		})
	}
}

func TestJudgeScores(t *testing.T) {
	tests := []struct {
		name      string
		reply     string
		want      float64
		malformed bool
	}{
		{"score", "Reasoning.\n<reward>85</reward>", 0.85, false},
		{"no tag is 0", "I think it is fine.", 0, false},
		{"empty reply is 0", "", 0, false},
		{"over 100 clamps", "<reward>150</reward>", 1, false},
		{"thinking dropped", "<think>say <reward>100</reward>?</think>\nNo: <reward>20</reward>", 0.2, false},
		{"unclosed thinking", "<think>the answer is <reward>90</reward>", 0, false},
		{"malformed fails", "<reward>1.2.3</reward>", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJudge(t, NameLLMBinaryGTNoConstraint, replying(tt.reply), nil)
			score, reason, err := j.CalculateReward(context.Background(), episode("", testGroundTruth))
			if tt.malformed {
				if !errors.Is(err, ErrJudgeFailed) || !errors.Is(err, ErrMalformedScore) {
					t.Fatalf("err = %v, want ErrJudgeFailed and ErrMalformedScore", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if score != tt.want || reason != tt.reply {
				t.Errorf("CalculateReward = %v, %q; want %v, the reply", score, reason, tt.want)
			}
		})
	}
}

func TestJudgeFailures(t *testing.T) {
	unavailable := fmt.Errorf("openai: endpoint unavailable: giving up after 5 attempts: %w", llm.ErrUnavailable)
	tests := []struct {
		name  string
		reply func(context.Context, int, []agentevolver.Message) (string, error)
		is    []error
		isNot []error
	}{
		{"unavailable", func(context.Context, int, []agentevolver.Message) (string, error) { return "", unavailable },
			[]error{ErrJudgeFailed, llm.ErrUnavailable}, nil},
		{"rejected", func(context.Context, int, []agentevolver.Message) (string, error) {
			return "", errors.New("400 bad request")
		},
			[]error{ErrJudgeFailed}, []error{llm.ErrUnavailable}},
		{"panic", func(context.Context, int, []agentevolver.Message) (string, error) { panic("boom") },
			[]error{ErrJudgeFailed}, nil},
	}
	for _, name := range []string{NameLLMBinaryGT, NameAvgLLMBinaryGT, NameLLM} {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				j := newJudge(t, name, &scriptedModel{reply: tt.reply}, nil)
				score, _, err := j.CalculateReward(context.Background(), episode(name, testGroundTruth))
				if score != 0 || err == nil {
					t.Fatalf("CalculateReward = %v, %v; want an error", score, err)
				}
				for _, e := range tt.is {
					if !errors.Is(err, e) {
						t.Errorf("err = %v; want it to match %v", err, e)
					}
				}
				for _, e := range tt.isNot {
					if errors.Is(err, e) {
						t.Errorf("err = %v; want it not to match %v", err, e)
					}
				}
				if fast, slow := j.RunningMean(); fast != InitialRunningMean || slow != InitialRunningMean {
					t.Errorf("a failed call moved the running means to %v, %v", fast, slow)
				}
			})
		}
	}
}

func TestJudgeCancelled(t *testing.T) {
	model := &scriptedModel{reply: func(ctx context.Context, _ int, _ []agentevolver.Message) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}}
	for _, name := range []string{NameLLMBinaryGT, NameAvgLLMBinaryGT} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, _, err := newJudge(t, name, model, nil).CalculateReward(ctx, episode(name, testGroundTruth))
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrJudgeFailed) {
			t.Errorf("%s: err = %v; want the context's error, not a judge failure", name, err)
		}
	}
}

func TestJudgeInputErrors(t *testing.T) {
	bad := episode("", testGroundTruth)
	bad.Trajectory.Steps = []agentevolver.Message{msg("system", "s"), msg("assistant", "a")}
	tool := episode("", testGroundTruth)
	tool.Trajectory.Steps = append(testSteps(), msg("tool", "result"))
	tests := []struct {
		name string
		in   agentflow.RewardInput
		want error // nil: judged
	}{
		{NameLLMBinaryGT, episode("", ""), ErrNoGroundTruth},
		{NameAvgLLMBinaryGT, episode("", ""), ErrNoGroundTruth},
		{NameLLMBinaryGTNoConstraint, episode("", ""), ErrNoGroundTruth},
		{NameLLMBinary, episode("", ""), nil},
		{NameLLM, episode("", ""), nil},
		{NameLLMGT, episode("", ""), nil},
		{NameLLMBinaryGT, bad, ErrBadTrajectory},
		{NameLLM, bad, ErrBadTrajectory},
		{NameLLMBinaryGT, tool, ErrBadTrajectory},
		{NameLLMGT, tool, nil}, // "ROLE: content" reads any role
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := replying("<reward>70</reward>")
			_, _, err := newJudge(t, tt.name, model, nil).CalculateReward(context.Background(), tt.in)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) || errors.Is(err, ErrJudgeFailed) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if n := model.calls.Load(); n != 0 {
				t.Errorf("%d model calls for an episode that cannot be judged", n)
			}
		})
	}
}

// waitCalls blocks until n calls of m have started, or a timeout.
func waitCalls(ctx context.Context, m *scriptedModel, n int32) error {
	deadline := time.Now().Add(5 * time.Second)
	for m.calls.Load() < n {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d calls started", m.calls.Load(), n)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

func TestAveragedJudge(t *testing.T) {
	model := &scriptedModel{}
	model.reply = func(ctx context.Context, n int, _ []agentevolver.Message) (string, error) {
		// Every call waits for the other two: the three run concurrently.
		if err := waitCalls(ctx, model, 3); err != nil {
			return "", err
		}
		return fmt.Sprintf("<reward>%d</reward>", []int{90, 60, 30}[n]), nil
	}
	j := newJudge(t, NameAvgLLMBinaryGT, model, nil)
	score, reason, err := j.CalculateReward(context.Background(), episode("", testGroundTruth))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(score-0.6) > 1e-12 || model.calls.Load() != 3 {
		t.Errorf("score %v after %d calls, want 0.6 after 3", score, model.calls.Load())
	}
	if !strings.Contains(reason, "mean of 3 judge scores") {
		t.Errorf("reason %q", reason)
	}
	// The three scores all moved the shared running means.
	fast, _ := j.RunningMean()
	if fast == InitialRunningMean {
		t.Errorf("running mean not updated")
	}

	// Config.Samples changes the number of calls.
	model5 := replying("<reward>50</reward>")
	j5 := newJudge(t, NameAvgLLM, model5, func(c *Config) { c.Samples = 5 })
	if score, _, err := j5.CalculateReward(context.Background(), episode("", "")); err != nil || math.Abs(score-0.5) > 1e-12 || model5.calls.Load() != 5 {
		t.Errorf("5 samples: %v, %v after %d calls", score, err, model5.calls.Load())
	}
}

func TestAveragedJudgeFailure(t *testing.T) {
	model := &scriptedModel{reply: func(ctx context.Context, n int, _ []agentevolver.Message) (string, error) {
		if n == 1 {
			return "", fmt.Errorf("503: %w", llm.ErrUnavailable)
		}
		<-ctx.Done() // the others are cancelled by the failure
		return "", ctx.Err()
	}}
	j := newJudge(t, NameAvgLLMBinaryGT, model, nil)
	done := make(chan error, 1)
	go func() {
		_, _, err := j.CalculateReward(context.Background(), episode("", testGroundTruth))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrJudgeFailed) || !errors.Is(err, llm.ErrUnavailable) {
			t.Errorf("err = %v; want ErrJudgeFailed and llm.ErrUnavailable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a failed call did not cancel its siblings")
	}
}

func TestConcurrencyBound(t *testing.T) {
	for _, bound := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			model := &scriptedModel{reply: func(context.Context, int, []agentevolver.Message) (string, error) {
				time.Sleep(2 * time.Millisecond)
				return "<reward>70</reward>", nil
			}}
			by := NewByEvaluator(Config{Model: model, MaxConcurrency: bound})
			var wg sync.WaitGroup
			names := []string{NameAvgLLMBinaryGT, NameLLMBinaryGT, NameAvgLLM, NameLLM}
			for i := range 12 {
				wg.Go(func() {
					name := names[i%len(names)]
					if _, _, err := by.CalculateReward(context.Background(), episode(name, testGroundTruth)); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if got := model.maxInFlight.Load(); got > int32(bound) {
				t.Errorf("%d requests in flight, bound %d", got, bound)
			}
			if got := model.calls.Load(); got != 24 {
				t.Errorf("%d calls, want 24", got)
			}
		})
	}
}

// emaAfter is a running mean after n equal scores.
func emaAfter(alpha, score float64, n int) float64 {
	return score + (InitialRunningMean-score)*math.Pow(alpha, float64(n))
}

func TestRunningMeanUpdates(t *testing.T) {
	model := replying("<reward>100</reward>")
	j := newJudge(t, NameLLMBinaryGT, model, nil)
	for range 2 {
		if _, _, err := j.CalculateReward(context.Background(), episode("", testGroundTruth)); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range [][2]string{{"0.3000", "0.3000"}, {"0.3700", "0.3350"}} {
		text := model.request(i)[0].Content
		if !strings.Contains(text, "you gave to samples was "+want[0]+".") || !strings.Contains(text, "around "+want[1]+" (+-0.2)") {
			t.Errorf("request %d does not show the means %v: …%s", i, want, text[len(text)-200:])
		}
	}
	fast, slow := j.RunningMean()
	if math.Abs(fast-0.433) > 1e-12 || math.Abs(slow-0.36825) > 1e-12 {
		t.Errorf("RunningMean = %v, %v; want 0.433, 0.36825", fast, slow)
	}
}

// TestRunningMeanConcurrent updates one judge's means from many goroutines
// (run it with -race): with equal scores the order does not matter.
func TestRunningMeanConcurrent(t *testing.T) {
	j := newJudge(t, NameAvgLLMBinaryGT, replying("<reward>80</reward>"), nil)
	const episodes = 40
	var wg sync.WaitGroup
	for range episodes {
		wg.Go(func() {
			if _, _, err := j.CalculateReward(context.Background(), episode("", testGroundTruth)); err != nil {
				t.Error(err)
			}
			j.RunningMean()
		})
	}
	wg.Wait()
	n := episodes * DefaultSamples
	fast, slow := j.RunningMean()
	if math.Abs(fast-emaAfter(FastAlpha, 0.8, n)) > 1e-9 || math.Abs(slow-emaAfter(SlowAlpha, 0.8, n)) > 1e-9 {
		t.Errorf("RunningMean = %v, %v; want %v, %v", fast, slow, emaAfter(FastAlpha, 0.8, n), emaAfter(SlowAlpha, 0.8, n))
	}
}
