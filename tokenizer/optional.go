package tokenizer

// SpecialTokens is implemented by tokenizers that know their
// end-of-sequence and padding tokens.
type SpecialTokens interface {
	// EOSID is the id that ends a model's turn (for Qwen instruct models
	// "<|im_end|>"), and whether there is one.
	EOSID() (int, bool)
	// PadID is the id used to pad batches, and whether there is one.
	PadID() (int, bool)
}

// TemplateProvider is implemented by tokenizers that come with a chat
// template.
type TemplateProvider interface {
	// ChatTemplate returns the tokenizer's chat template, or an error
	// wrapping ErrUnsupported when it has none this package can render.
	ChatTemplate() (ChatTemplate, error)
}
