package experience_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/llm"
)

// expertEpisode plays the expert's demonstration of a toolworld task and
// records it as a trajectory, as the agent flow would.
func expertEpisode(ctx context.Context, env *toolworld.Env, taskID string) (agentevolver.Trajectory, error) {
	inst, err := env.New(ctx, taskID, "example", map[string]any{"sparse": true})
	if err != nil {
		return agentevolver.Trajectory{}, err
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		return agentevolver.Trajectory{}, err
	}
	traj := agentevolver.Trajectory{TaskID: taskID, Query: init.State[1].Content, Steps: init.State}
	actions, err := env.Demonstrate(ctx, taskID)
	if err != nil {
		return agentevolver.Trajectory{}, err
	}
	for _, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			return agentevolver.Trajectory{}, err
		}
		traj.Steps = append(append(traj.Steps, a), res.State...)
		if res.IsTerminated {
			traj.Reward = agentevolver.NewReward(res.Reward, "", 0)
		}
	}
	return traj, nil
}

// A solved toolworld episode becomes a worked example: the task and the
// calls that solved it, one per line, short enough for a small policy's
// prompt.
func ExampleWorkedExampleSummarizer() {
	ctx := context.Background()
	env, err := toolworld.New(toolworld.Config{Compact: true})
	if err != nil {
		log.Fatal(err)
	}
	traj, err := expertEpisode(ctx, env, "tw-train-0002")
	if err != nil {
		log.Fatal(err)
	}
	var s experience.WorkedExampleSummarizer
	exps, err := s.Summarize(ctx, []agentevolver.Trajectory{traj})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range exps {
		fmt.Printf("key: %s\nscore: %v, source: %s\n%s\n", e.Key, e.Score, e.Source, e.Text)
	}
	// Output:
	// key: What is the phone number of the person I meet on Tue?
	// score: 1, source: worked_example
	// Task: What is the phone number of the person I meet on Tue?
	// Solved with:
	// calendar.list day=Tue
	// contacts.find name=Sam
	// task.finish answer=555-1457
}

// An LLMSummarizer asks any llm.ChatModel, here a scriptedModel one, for the
// lessons of each task's episodes.
func ExampleLLMSummarizer() {
	ctx := context.Background()
	env, err := toolworld.New(toolworld.Config{Compact: true})
	if err != nil {
		log.Fatal(err)
	}
	traj, err := expertEpisode(ctx, env, "tw-train-0002")
	if err != nil {
		log.Fatal(err)
	}
	model := llm.ChatModelFunc(func(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
		answer := "<think>The agent read the calendar, then the contact.</think>\n" +
			"LESSON: To reach the person you meet on a day, list that day's calendar, then find the contact.\n" +
			"LESSON: Answer a question in task.finish with the exact value read, such as the phone number."
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: answer}}, nil
	})
	s, err := experience.NewLLMSummarizer(model, experience.LLMSummarizerConfig{MaxLessons: 2})
	if err != nil {
		log.Fatal(err)
	}
	exps, err := s.Summarize(ctx, []agentevolver.Trajectory{traj})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range exps {
		fmt.Printf("%s (score %v, %s): %s\n", e.TaskID, e.Score, e.Source, e.Text)
	}
	// Output:
	// tw-train-0002 (score 1, llm): To reach the person you meet on a day, list that day's calendar, then find the contact.
	// tw-train-0002 (score 1, llm): Answer a question in task.finish with the exact value read, such as the phone number.
}

// Groups whose answer cannot be parsed, or whose request failed, give no
// experiences; the *SummaryError that comes with the others' experiences
// counts them by cause.
func ExampleSummaryError() {
	ctx := context.Background()
	model := llm.ChatModelFunc(func(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
		switch task := msgs[1].Content; {
		case strings.Contains(task, "Pay Ann"):
			return llm.Completion{}, fmt.Errorf("HTTP 503: %w", llm.ErrUnavailable)
		case strings.Contains(task, "Call Bob"):
			return llm.Completion{Message: agentevolver.Message{Content: "The agent did well."}}, nil
		}
		return llm.Completion{Message: agentevolver.Message{Content: "LESSON: Read the file before writing it."}}, nil
	})
	episode := func(id, query string) agentevolver.Trajectory {
		return agentevolver.Trajectory{TaskID: id, Steps: []agentevolver.Message{
			{Role: agentevolver.RoleUser, Content: query},
			{Role: agentevolver.RoleAssistant, Content: "```tool\nfiles.list\n```"},
			{Role: agentevolver.RoleUser, Content: "notes.txt"},
		}}
	}
	s, err := experience.NewLLMSummarizer(model, experience.LLMSummarizerConfig{MaxConcurrency: 1})
	if err != nil {
		log.Fatal(err)
	}
	exps, err := s.Summarize(ctx, []agentevolver.Trajectory{
		episode("t1", "Call Bob."), episode("t2", "Edit notes.txt."), episode("t3", "Pay Ann 5."),
	})
	fmt.Println(len(exps), "experience:", exps[0].Text)
	var se *experience.SummaryError
	if errors.As(err, &se) {
		fmt.Printf("%d of %d groups failed: %d malformed, %d unavailable\n",
			len(se.Failed), se.Groups, se.Count(experience.ErrMalformedAnswer), se.Count(llm.ErrUnavailable))
	}
	// Output:
	// 1 experience: Read the file before writing it.
	// 2 of 3 groups failed: 1 malformed, 1 unavailable
}

// ParseLessons reads a model's answer defensively: thinking, preambles and
// list markers are ignored, repeats dropped and the count bounded.
func ExampleParseLessons_fromSummaryModel() {
	answer := "<think>LESSON: a draft</think>\nHere is what I learned:\n" +
		"1. LESSON: Check the bill's amount before paying.\n" +
		"2. **Lesson:** check the bill's amount before paying.\n" +
		"3. LESSON: Pay only contacts.\n" +
		"4. LESSON: Finish with task.finish."
	lessons, err := experience.ParseLessons(answer, 2, 0)
	fmt.Printf("%q %v\n", lessons, err)
	_, err = experience.ParseLessons("I would pay the bill.", 2, 0)
	fmt.Println(errors.Is(err, experience.ErrMalformedAnswer))
	// Output:
	// ["Check the bill's amount before paying." "Pay only contacts."] <nil>
	// true
}
