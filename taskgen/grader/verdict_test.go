package grader

import "testing"

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  bool
	}{
		{"explicit true", "Success: true\nReason: all APIs called.", true},
		{"explicit true, upper case", "SUCCESS: TRUE", true},
		{"successful: true", "Successful: true", true},
		{"explicit false", "Success: false\nReason: the task was completed, achieved and solved.", false},
		{"successful: false", "successful: false", false},
		{"true wins over false", "Success: false ... on reflection, Success: true", true},
		{"empty", "", false},
		{"nothing", "I cannot tell.", false},
		// Keyword counting, substring presence, each word once.
		{"completed", "The task was completed.", true},
		{"repeated words count once", "failed failed failed, but completed and solved", true},
		{"tie fails", "completed but failed", false},
		{"unsuccessful counts both ways", "The attempt was unsuccessful.", false},
		{"not completed counts both ways", "The task is not completed.", false},
		{"not completed loses to one more success word", "not completed, though the first part was achieved", true},
		{"incomplete is no completed", "incomplete", false},
		{"successfully", "It successfully sent the mail.", true},
		{"unsolved counts solved", "The puzzle remained unsolved.", true},
		{"failure counts nothing", "A failure. Accomplished nothing.", true},
		{"no space is no verdict", "Success:false", true},
		{"extra space is no verdict; not achieved counts achieved", "Success:  false, not achieved", true},
		// Python's lower() turns İ into i + U+0307, which breaks "failed".
		{"dotted capital I", "FAİLED, completed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseVerdict(tt.reply); got != tt.want {
				t.Errorf("ParseVerdict(%q) = %v, want %v", tt.reply, got, tt.want)
			}
		})
	}
}
