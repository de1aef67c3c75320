package proctest_test

import (
	"fmt"
	"os/exec"

	"github.com/org/agentevolver/internal/proctest"
)

// A child that has exited and been reaped is no longer listed.
func ExampleLiveChildren() {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range proctest.LiveChildren() {
		fmt.Println("still running:", c)
	}
	fmt.Println("done")
	// Output: done
}
