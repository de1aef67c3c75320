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

// EOSID resolves tok's end-of-turn id: its SpecialTokens.EOSID when it
// reports one, else the id of "<|im_end|>" (IMEnd) when the vocabulary has
// it. It is the one place the module decides which token ends a turn.
func EOSID(tok Tokenizer) (int, bool) {
	if st, ok := tok.(SpecialTokens); ok {
		if id, ok := st.EOSID(); ok {
			return id, true
		}
	}
	return tok.TokenID(IMEnd)
}

// PadID resolves the id that pads tok's batches: its SpecialTokens.PadID
// when it reports one, else its end-of-turn id (EOSID).
func PadID(tok Tokenizer) (int, bool) {
	if st, ok := tok.(SpecialTokens); ok {
		if id, ok := st.PadID(); ok {
			return id, true
		}
	}
	return EOSID(tok)
}

// TemplateProvider is implemented by tokenizers that come with a chat
// template.
type TemplateProvider interface {
	// ChatTemplate returns the tokenizer's chat template, or an error
	// wrapping ErrUnsupported when it has none this package can render.
	ChatTemplate() (ChatTemplate, error)
}
