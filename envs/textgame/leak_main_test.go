package textgame

import (
	"os"
	"testing"

	"github.com/org/agentevolver/internal/proctest"
)

// TestMain fails the suite when any process the tests started outlives
// it: every instance must take its processes with it, whatever the test
// did to it.
func TestMain(m *testing.M) { os.Exit(proctest.Main(m)) }
