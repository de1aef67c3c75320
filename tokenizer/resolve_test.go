package tokenizer

import "testing"

// noSpecials hides a tokenizer's SpecialTokens methods.
type noSpecials struct{ Tokenizer }

func TestEOSAndPadResolution(t *testing.T) {
	bl, err := NewByteLevel(ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	imEnd, _ := bl.TokenID(IMEnd)
	eot, _ := bl.TokenID(EndOfText)
	if id, ok := EOSID(bl); !ok || id != imEnd {
		t.Errorf("EOSID = %d, %v; want %d", id, ok, imEnd)
	}
	if id, ok := PadID(bl); !ok || id != eot {
		t.Errorf("PadID = %d, %v; want the pad token %d", id, ok, eot)
	}
	// Without SpecialTokens: "<|im_end|>" by name, and padding with it.
	plain := noSpecials{bl}
	if id, ok := EOSID(plain); !ok || id != imEnd {
		t.Errorf("EOSID(plain) = %d, %v; want %d", id, ok, imEnd)
	}
	if id, ok := PadID(plain); !ok || id != imEnd {
		t.Errorf("PadID(plain) = %d, %v; want the end-of-turn id %d", id, ok, imEnd)
	}
}
