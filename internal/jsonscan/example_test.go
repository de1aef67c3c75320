package jsonscan_test

import (
	"encoding/json"
	"fmt"

	"github.com/org/agentevolver/internal/jsonscan"
)

func ExampleObjects() {
	text := `Let me check. {"name": "bank.balance", "arguments": {}} Then {"name": "task.finish",}`
	bad := jsonscan.Objects(text, 32, func(obj map[string]json.RawMessage) {
		fmt.Println("object with name", string(obj["name"]))
	})
	fmt.Println("broken call:", bad != "")
	// Output:
	// object with name "bank.balance"
	// broken call: true
}
