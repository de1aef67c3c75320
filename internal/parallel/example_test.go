package parallel_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/org/agentevolver/internal/parallel"
)

func ExampleForEach() {
	tasks := []string{"a", "b", "c", "d", "e"}
	out := make([]string, len(tasks)) // each call writes its own slot
	err := parallel.ForEach(context.Background(), len(tasks), 2, func(i int) {
		out[i] = strings.ToUpper(tasks[i])
	})
	fmt.Println(out, err)
	// Output:
	// [A B C D E] <nil>
}
