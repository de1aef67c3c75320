package envservice_test

import (
	"context"
	"testing"

	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// Code holding only the Manager reaches toolworld's capabilities through
// Manager.Environment.
func TestManagerEnvironmentToolworldCapabilities(t *testing.T) {
	ctx := context.Background()
	m, tw := newToolworldManager(t)
	defer m.Close()
	env, ok := m.Environment(toolworld.Name)
	if !ok || env != envservice.Environment(tw) {
		t.Fatalf("Environment(%q) = %v, %v", toolworld.Name, env, ok)
	}
	if _, ok := env.(envservice.ProfileProvider); !ok {
		t.Error("toolworld is not a ProfileProvider")
	}
	expert, ok := env.(envservice.Expert)
	if !ok {
		t.Fatal("toolworld is not an Expert")
	}
	const id = "tw-train-0001"
	actions, err := expert.Demonstrate(ctx, id)
	if err != nil || len(actions) == 0 {
		t.Fatalf("Demonstrate(%s) = %v, %v", id, actions, err)
	}
	// The demonstration solves the task when played through the Manager.
	if _, err := m.Create(ctx, toolworld.Name, id, "demo", map[string]any{"sparse": true}); err != nil {
		t.Fatal(err)
	}
	var reward float64
	for _, a := range actions {
		res, err := m.Step(ctx, "demo", a, nil)
		if err != nil {
			t.Fatal(err)
		}
		reward = res.Reward
	}
	if reward != 1 {
		t.Errorf("the demonstration scored %v", reward)
	}
	meta, ok := env.(envservice.TaskMetadataProvider)
	if !ok {
		t.Fatal("toolworld is not a TaskMetadataProvider")
	}
	if md, err := meta.TaskMetadata(ctx, id); err != nil || md.Difficulty != 2 {
		t.Errorf("TaskMetadata(%s) = %+v, %v", id, md, err)
	}
	cp, ok := env.(envservice.CorpusProvider)
	if !ok {
		t.Fatal("toolworld is not a CorpusProvider")
	}
	if docs, err := cp.Corpus(ctx, toolworld.SplitVal); err != nil || len(docs) == 0 {
		t.Errorf("Corpus(val) = %d documents, %v", len(docs), err)
	}
}
