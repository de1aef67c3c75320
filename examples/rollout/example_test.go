package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/org/agentevolver/envs/toolworld"
)

// One episode of the built-in toolworld, played by a "model" that answers
// with the expert's actions over the OpenAI wire format from a local test
// server: the transcript, the score and the summary.
func Example() {
	expert, err := newExpert(toolworld.Config{Compact: true})
	if err != nil {
		log.Fatal(err)
	}
	srv := newChatServer(expert.reply)
	defer srv.Close()

	err = run(context.Background(), []string{
		"--base-url", srv.baseURL(), "--model", testModel,
		"--compact", "--show-system", "--split", "val", "--task-ids", "tw-val-0002", "--width", "72",
	}, os.Stdout, io.Discard)
	fmt.Println("error:", err)
	// Output:
	// === episode 1/1: task tw-val-0002, rollout 0 ===
	// [system]
	//   One call per turn:
	//   ```tool
	//   bank.pay to=Ann amount=5
	//   ```
	//   contacts: find name, add name phone
	//   calendar: list day, add title day with, cancel id
	//   files: read name, write name text, delete name
	//   bank: balance, pay to amount
	//   task: finish [answer] (ends the task; answer questions)
	// [user]
	//   Save the phone number of the person in memo.txt to call.txt.
	// [assistant, turn 1]
	//   ```tool
	//   files.read name=memo.txt
	//   ```
	// [environment]
	//   Call Dan.
	// [assistant, turn 2]
	//   ```tool
	//   contacts.find name=Dan
	//   ```
	// [environment]
	//   Dan 555-6637
	// [assistant, turn 3]
	//   ```tool
	//   files.write name=call.txt text=555-6637
	//   ```
	// [environment]
	//   wrote call.txt
	// [assistant, turn 4]
	//   ```tool
	//   task.finish
	//   ```
	// [environment, episode over, reward 1]
	//   task finished
	// --- score 1.00 (success), 4 turns, finished
	//
	// === summary ===
	// TASK         ROLLOUT  SCORE  TURNS  END
	// tw-val-0002  0        1.00   4      finished
	// episodes: 1 finished | mean score 1.000 | success rate 100.0% (1/1)
	// error: <nil>
}
