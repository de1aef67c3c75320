package jsonl_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/org/agentevolver/internal/jsonl"
)

func ExampleLines() {
	file := "{\"task_id\": \"a\"}\n\n{\"task_id\": \"b\"}\n"
	err := jsonl.Lines(strings.NewReader(file), 1<<20, func(n int, line []byte) error {
		var v struct {
			TaskID string `json:"task_id"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		fmt.Println(n, v.TaskID)
		return nil
	})
	fmt.Println(err)
	// Output:
	// 1 a
	// 3 b
	// <nil>
}
