package tokenizer

import (
	"sync"
	"unicode/utf8"
)

// GPT-2's byte-level alphabet (OpenAI's encoder.py, bytes_to_unicode; in
// llama.cpp unicode.cpp, unicode_byte_to_utf8_map): every byte is spelt as
// one printable code point, so that a vocabulary of strings can hold any
// bytes. The printable bytes '!'…'~', '¡'…'¬' and '®'…'ÿ' stand for
// themselves; the other 68, in byte order, are U+0100, U+0101, …: the space
// 0x20 is "Ġ" (U+0120) and the new line 0x0A is "Ċ" (U+010A).
//
// The alphabet is made on first use: a page that runs no byte-level
// vocabulary does not make it at start.
var byteAlphabet = sync.OnceValues(func() (toRune *[256]rune, toByte map[rune]byte) {
	toRune, toByte = new([256]rune), make(map[rune]byte, 256)
	next := rune(256)
	for b := range 256 {
		r := rune(b)
		if !('!' <= r && r <= '~' || '¡' <= r && r <= '¬' || '®' <= r && r <= 'ÿ') {
			r = next
			next++
		}
		toRune[b], toByte[r] = r, byte(b)
	}
	return toRune, toByte
})

// ByteLevel spells text in GPT-2's byte-level alphabet, as a byte-level
// vocabulary stores it: ByteLevel(" the\n") is "ĠtheĊ".
func ByteLevel(text string) string { return string(byteEncode(nil, text)) }

// byteEncode appends the byte-level spelling of text to dst.
func byteEncode(dst []byte, text string) []byte {
	toRune, _ := byteAlphabet()
	for i := 0; i < len(text); i++ {
		dst = utf8.AppendRune(dst, toRune[text[i]])
	}
	return dst
}

// byteDecode returns the bytes a byte-level token spells. A code point
// outside the alphabet is kept as its UTF-8 (llama.cpp's llama_decode_text
// writes "[UNK_BYTE_0x…]" there instead); only hand-made vocabularies have
// one in a normal token.
func byteDecode(token string) string {
	_, toByte := byteAlphabet()
	out := make([]byte, 0, len(token))
	for _, r := range token {
		if b, ok := toByte[r]; ok {
			out = append(out, b)
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	return string(out)
}
