package contextmgr_test

import (
	"testing"

	"github.com/org/agentevolver/contextmgr"
)

// TestSectionsApply checks that each strategy's section sets every one of
// its settings in a Config, and nothing of another strategy.
func TestSectionsApply(t *testing.T) {
	var lt contextmgr.Config
	contextmgr.LinearThinkConfig{ForceThink: true, ThinkPreference: contextmgr.PreferBox, TrainHistory: true, MaxSamples: 7}.Apply(&lt)
	if !lt.ForceThink || lt.ThinkPreference != contextmgr.PreferBox || !lt.TrainHistory || lt.MaxSamples != 7 || lt.ClipTriggerTokens != 0 {
		t.Errorf("linear_think: %+v", lt)
	}
	var sc contextmgr.Config
	contextmgr.SelfClipConfig{ClipTriggerTokens: 100, ClipReplyTokens: 20, TrainClipDecisions: true, ForceThink: true, ThinkPreference: contextmgr.PreferCode, MaxSamples: 3}.Apply(&sc)
	if sc.ClipTriggerTokens != 100 || sc.ClipReplyTokens != 20 || !sc.TrainClipDecisions || !sc.ForceThink || sc.ThinkPreference != contextmgr.PreferCode || sc.MaxSamples != 3 || sc.TrainHistory {
		t.Errorf("context_selfclip: %+v", sc)
	}
	var m contextmgr.Config
	contextmgr.MemoryConfig{MaxSamples: 5}.Apply(&m)
	if m.MaxSamples != 5 || m.ForceThink {
		t.Errorf("memory: %+v", m)
	}
	var pc contextmgr.Config
	contextmgr.PerCallConfig{MaxSamples: 9}.Apply(&pc)
	if pc.MaxSamples != 9 || pc.ForceThink {
		t.Errorf("per_call: %+v", pc)
	}
}
