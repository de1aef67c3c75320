package golden_test

import (
	"fmt"

	"github.com/org/agentevolver/internal/golden"
)

// Fixture numbers compare with an absolute plus a relative tolerance, and
// NaN equals only NaN.
func ExampleClose() {
	fmt.Println(golden.Close(1.000001, 1, 1e-5, 0), golden.Close(2, 1, 1e-5, 1e-5))
	// Output: true false
}
