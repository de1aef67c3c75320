package llm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

func TestChatModelFunc(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		fn      llm.ChatModelFunc
		want    string
		wantErr error
	}{
		{
			name: "passes messages and options through",
			fn: func(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
				if opts.MaxTokens != 7 || *opts.Temperature != 0.5 {
					return llm.Completion{}, errors.New("options not passed through")
				}
				return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: messages[0].Content + "!"}}, nil
			},
			want: "hi!",
		},
		{
			name: "returns errors unchanged",
			fn: func(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
				return llm.Completion{}, errBoom
			},
			wantErr: errBoom,
		},
		{
			name: "sees the caller's context",
			fn: func(ctx context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
				return llm.Completion{}, ctx.Err()
			},
			wantErr: context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.wantErr == context.Canceled {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			var m llm.ChatModel = tt.fn
			got, err := m.Chat(ctx, []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "hi"}},
				llm.ChatOptions{MaxTokens: 7, Temperature: llm.Float(0.5)})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got.Message.Content != tt.want {
				t.Fatalf("content = %q, want %q", got.Message.Content, tt.want)
			}
		})
	}
}

func TestFloat(t *testing.T) {
	a, b := llm.Float(0), llm.Float(0)
	if a == b {
		t.Fatal("Float returned a shared pointer")
	}
	if *a != 0 || *llm.Float(0.9) != 0.9 {
		t.Fatal("Float lost its value")
	}
}
