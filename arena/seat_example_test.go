package arena_test

import (
	"context"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/llm"
)

// A game played from outside, a question at a time, as an environment
// serves it to a policy: the game runs in its own goroutine with the
// seat's model in the seat, and each of that model's calls becomes a
// question for the caller to answer.
func ExampleSeat() {
	play := func(ctx context.Context, seat llm.ChatModel) error {
		for _, q := range []string{"Your opening?", "Your reply to e5?"} {
			c, err := seat.Chat(ctx, []agentevolver.Message{{Role: agentevolver.RoleUser, Content: q}}, llm.ChatOptions{})
			if err != nil {
				return err
			}
			fmt.Println("game: the seat plays", c.Message.Content)
		}
		return nil
	}
	seat := arena.StartSeat(context.Background(), play)
	defer seat.Close()
	moves := []string{"e4", "Nf3"}
	for {
		question, over, err := seat.Next(context.Background())
		if err != nil {
			fmt.Println(err)
			return
		}
		if over {
			fmt.Println("policy: game over after", seat.Asked(), "questions")
			return
		}
		fmt.Println("policy: asked", question[0].Content)
		seat.Answer(moves[seat.Asked()-1])
	}
	// Output:
	// policy: asked Your opening?
	// game: the seat plays e4
	// policy: asked Your reply to e5?
	// game: the seat plays Nf3
	// policy: game over after 2 questions
}

// A Recorder in a seat keeps what the seat was asked and answered: the
// replies are a demonstration, the texts a corpus.
func ExampleRecorder() {
	model := llm.ChatModelFunc(func(_ context.Context, m []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "I pass."}}, nil
	})
	rec := &arena.Recorder{Model: model}
	system := agentevolver.Message{Role: agentevolver.RoleSystem, Content: "You are Player 1."}
	for _, q := range []string{"Round 1: your move?", "Round 2: your move?"} {
		if _, err := rec.Chat(context.Background(), []agentevolver.Message{system, {Role: agentevolver.RoleUser, Content: q}}, llm.ChatOptions{}); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println(len(rec.Demonstration()), "replies")
	for _, doc := range rec.Corpus(map[string]bool{}) {
		fmt.Println(doc)
	}
	// Output:
	// 2 replies
	// You are Player 1.
	// Round 1: your move?
	// I pass.
	// Round 2: your move?
	// I pass.
}
