package tokenizer

import "testing"

// TestLlamaCppPiece checks the text of single tokens as llama.cpp's detokenize
// gives it, from llama2.c pieces through the converter's rule: the names
// of tokens 0 to 2 (stories260K's BOS is "\n<s>\n" in tokenizer.bin), a
// byte's byte, "▁" as a space, one leading space removed.
func TestLlamaCppPiece(t *testing.T) {
	tests := []struct {
		id          int
		piece, want string
	}{
		{0, "<unk>", "<unk>"},
		{1, "\n<s>\n", "<s>"},
		{2, "\n</s>\n", "</s>"},
		{3, "<0x0A>", "\n"},
		{35, "<0x20>", ""}, // a space, removed as the leading one
		{40, "<0x3A>", ":"},
		{300, " the", "the"},
		{301, "  a", " a"},
		{302, "ing", "ing"},
		{303, "", ""},
		{304, "a b", "a b"},
	}
	for _, tt := range tests {
		if got := LlamaCppPiece(Llama2cToken(tt.id, tt.piece)); got != tt.want {
			t.Errorf("token %d %q: %q, want %q", tt.id, tt.piece, got, tt.want)
		}
	}
	if got := LlamaCppPiece("<0x41>", TokenUnused); got != "" {
		t.Errorf("an unused token: %q, want none", got)
	}
}
