package cues_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/taskgen"
	"github.com/org/agentevolver/taskgen/cues"
)

// toolworldScript explores toolworld, abstracts two distinct tasks (plus
// a near-duplicate, a low-confidence and an incomplete block), re-executes
// them and approves everything, so that the environment check decides.
func toolworldScript() *script {
	explore := []string{
		"Let me see the files.\n<action>\n" + tool("files.list") + "\n</action>",
		"<action>\n" + tool("files.write name=cues.txt text=hello") + "\n</action>",
		tool("bank.balance"), // no tags: counted, but still an action
		"<action>\n" + tool("contacts.list") + "\n</action>",
		"", // nothing: "look around"
		"Done.\n<action><finish></action>",
	}
	abstract := "Here are the tasks.\n<task>\nDescription: Write a file\nQuery: Write hello to cues.txt\nConfidence: 0.9\nActionSequence:\n# step1\n" +
		tool("files.write name=cues.txt text=hello") + "\n# step2\n" + tool("task.finish") + "\n</task>\n" +
		"<task>\nDescription: Write a file again\nQuery: write hello to cues.txt please\nConfidence: 0.8\nActionSequence:\n" + tool("files.write name=cues.txt text=hello") + "\n</task>\n" +
		"<task>\n**Description:** Read the balance\n**Query:** What is my bank balance?\nConfidence: 0.75\nActionSequence:\n" + tool("bank.balance") + "\n" + tool("task.finish answer=0") + "\n</task>\n" +
		"<task>\nDescription: Risky\nQuery: Delete everything\nConfidence: 0.3\nActionSequence:\nfiles.delete name=x\n</task>\n" +
		"<task>\nQuery: a block without a description\n</task>"
	return &script{answer: func(r string, n int, msgs []agentevolver.Message) string {
		switch r {
		case "explorer":
			return explore[n%len(explore)]
		case "memory":
			return "" // the fallback text
		case "abstract":
			return abstract
		case "actor":
			k := previousActions(msgs)
			if strings.Contains(queryOf(msgs), "balance") {
				return []string{"<action>\n" + tool("bank.balance") + "\n</action>", "<action>\n" + tool("task.finish answer=0") + "\n</action>"}[min(k, 1)]
			}
			return []string{"I write the file.\n<action>\n" + tool("files.write name=cues.txt text=hello") + "\n</action>",
				"<action>\n" + tool("task.finish") + "\n</action>"}[min(k, 1)]
		case "judge":
			return "**Success:** true\nReason: the agent did it."
		case "rewrite":
			return "1. Put hello into cues.txt\n- Save the word hello in the file cues.txt\nWrite hello to cues.txt"
		case "requirement":
			return "Explore the files app: write and read files."
		case "concepts":
			return `["file", "balance", 'meeting']`
		}
		return ""
	}}
}

func TestEndToEndToolworld(t *testing.T) {
	s := toolworldScript()
	out := t.TempDir()
	st, err := cues.OpenStore(out)
	if err != nil {
		t.Fatal(err)
	}
	p := &cues.Pipeline{
		Env:   manager(t, toolworld.Name, builtin.Config{Toolworld: toolworld.Config{TrainSize: 2}}),
		Model: serve(t, s),
		Store: st,
		Config: cues.Config{
			EnvType: toolworld.Name, Session: "test", Seed: 1, Requirement: "files", Workers: 2,
			Concepts: cues.ConceptConfig{Enabled: true, Tasks: 3, BatchSize: 2},
			Stage1:   cues.Stage1Config{RolloutNum: 3, MaxSteps: 6},
			Stage2:   cues.Stage2Config{BatchSize: 4},
			Rewrite:  cues.RewriteConfig{Enabled: true, Export: true},
		},
	}
	stats, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	stats.Print(&b)
	t.Log("\n" + b.String())

	// The rollouts share the script's explorer turns, so how many steps
	// each takes depends on their interleaving.
	if stats.Stage1.Finished != 3 || stats.Stage1.Triplets < 5 || stats.Stage1.NoAction < 2 {
		t.Errorf("stage 1 = %+v, want 3 rollouts, triplets and replies without an action", stats.Stage1)
	}
	if s.count("memory") == 0 {
		t.Error("no exploration memory was summarised")
	}
	mems, _ := filepath.Glob(filepath.Join(out, "memories", "memory_*_exploration.txt"))
	if len(mems) == 0 {
		t.Fatal("no memory file")
	}
	if m, _ := os.ReadFile(mems[0]); !strings.HasPrefix(string(m), "Previous exploration attempted") {
		t.Errorf("memory = %q, want the fallback text", m)
	}
	if stats.Stage2.Incomplete != stats.Stage2.Batches || stats.Stage2.LowConfidence != stats.Stage2.Batches {
		t.Errorf("stage 2 = %+v: want one incomplete and one low-confidence block per batch", stats.Stage2)
	}
	if stats.Stage2.Kept != 2 || stats.Stage2.Tasks != 3*stats.Stage2.Batches {
		t.Errorf("stage 2 kept %d of %d tasks, want 2 (write and balance)", stats.Stage2.Kept, stats.Stage2.Tasks)
	}
	s3 := stats.Stage3
	if s3.Tasks != 2 || s3.Judged != 2 || s3.EnvChecked != 2 || s3.JudgePassed != 2 {
		t.Errorf("stage 3 = %+v, want both tasks judged (passed) and env-checked", s3)
	}
	if s3.Accepted != s3.EnvPassed || s3.Disagreements != s3.JudgePassed-s3.EnvPassed || s3.Accepted < 1 {
		t.Errorf("stage 3 = %+v: the environment check must decide, and the write task pass", s3)
	}
	for _, f := range []string{"triplets/triplets_test.jsonl", "triplets/rollouts.jsonl", "tasks/tasks_test.jsonl",
		"trajectories/statistics.json", "statistics.json", "requirement.json", "concepts.json", "session.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	objs, err := taskgen.ReadTaskFile(filepath.Join(out, cues.ExportJSONL))
	if err != nil {
		t.Fatal(err)
	}
	pq, err := taskgen.ReadTaskFile(filepath.Join(out, cues.ExportParquet))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != stats.Exported || len(pq) != len(objs) || len(objs) != s3.Accepted*3 {
		t.Fatalf("exported %d (parquet %d), want %d accepted tasks with 2 rewrites each", len(objs), len(pq), s3.Accepted)
	}
	var write *agentevolver.Task
	for i, o := range objs {
		if o.Task.Query == "Write hello to cues.txt" {
			write = &objs[i].Task
		}
	}
	if write == nil || !strings.HasPrefix(write.TaskID, toolworld.HindsightPrefix) || write.Evaluator != agentevolver.EvaluatorEnv {
		t.Fatalf("the write task is exported as %+v, want a hindsight task the environment scores", write)
	}
	if !strings.Contains(write.GroundTruth, "# step1\n```tool\nfiles.write") {
		t.Errorf("ground truth %q lost its layout", write.GroundTruth)
	}
	if _, ok := write.Metadata["cues"]; !ok {
		t.Errorf("no provenance in %v", write.Metadata)
	}

	// A second run finds everything done and asks the model nothing but
	// the probe.
	before := map[string]int{}
	for _, r := range []string{"explorer", "abstract", "actor", "judge", "rewrite", "requirement", "concepts", "memory"} {
		before[r] = s.count(r)
	}
	p2 := *p
	stats2, err := p2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for r, n := range before {
		if s.count(r) != n {
			t.Errorf("the finished run asked the %s again (%d -> %d)", r, n, s.count(r))
		}
	}
	if stats2 != stats {
		t.Errorf("statistics changed on a rerun:\n%+v\n%+v", stats, stats2)
	}
}

// TestEndToEndSqlworld runs the pipeline on sqlworld, which relabels no
// episode: the environment check replays the ground truth.
func TestEndToEndSqlworld(t *testing.T) {
	q := func(sql string) string { return "```sql\n" + sql + "\n```" }
	sub := func(sql string) string { return "```submit\n" + sql + "\n```" }
	const norway = "SELECT name FROM countries WHERE alpha_2 = 'NO'"
	const sweden = "SELECT name FROM countries WHERE alpha_2 = 'SE'"
	abstract := "<task>\nDescription: Country name\nQuery: What is the name of the country with code NO?\nConfidence: 1\nActionSequence:\n# step1\n" + q(norway) + "\n# step2\n" + sub(norway) + "\n</task>\n" +
		"<task>\nDescription: Another name\nQuery: Which country has the code SE?\nConfidence: 0.9\nActionSequence:\n# step1\n" + q(sweden) + "\n# step2\n" + sub(sweden) + "\n</task>\n"
	s := &script{answer: func(r string, n int, msgs []agentevolver.Message) string {
		switch r {
		case "explorer":
			return []string{"<action>\n" + q(norway) + "\n</action>", "<action>\n" + q(sweden) + "\n</action>", "no action here"}[n%3]
		case "abstract":
			if n == 0 {
				return "I found nothing." // a reply that parses to no task
			}
			return abstract
		case "actor":
			// The actor always answers about Norway: right for NO, wrong
			// for SE, where the judge still approves.
			return []string{"<action>\n" + q(norway) + "\n</action>", "<action>\n" + sub(norway) + "\n</action>"}[min(previousActions(msgs), 1)]
		case "judge":
			return "Success: true"
		}
		return ""
	}}
	st, err := cues.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &cues.Pipeline{
		Env:   manager(t, sqlworld.Name, builtin.Config{Sqlworld: sqlworld.Config{TrainSize: 3, ValSize: 3, TestSize: 3}}),
		Model: serve(t, s),
		Store: st,
		Config: cues.Config{EnvType: sqlworld.Name, Seed: 2, Workers: 1,
			Stage1: cues.Stage1Config{RolloutNum: 2, MaxSteps: 3, MemoryTriplets: -1},
			Stage2: cues.Stage2Config{BatchSize: 3}},
	}
	stats, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	stats.Print(&b)
	t.Log("\n" + b.String())
	if stats.Stage1.Triplets != 6 || stats.Stage1.NoAction != 2 {
		t.Errorf("stage 1 = %+v", stats.Stage1)
	}
	if stats.Stage2.NoTaskBatches != 1 || stats.Stage2.Kept != 2 {
		t.Errorf("stage 2 = %+v, want one batch without a task and 2 tasks kept", stats.Stage2)
	}
	s3 := stats.Stage3
	if s3.Accepted != 1 || s3.Rejected != 1 || s3.EnvPassed != 1 || s3.Disagreements != 1 || s3.SuccessRate != 0.5 {
		t.Errorf("stage 3 = %+v, want NO accepted and SE rejected by the replay check against the judge", s3)
	}
	objs, err := taskgen.ReadTaskFile(st.Path(cues.ExportParquet))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Task.Evaluator != agentevolver.EvaluatorSynthetic || !strings.Contains(objs[0].Task.Query, "NO") {
		t.Errorf("exported %+v", objs)
	}
}
