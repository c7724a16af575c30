package tokenizer

import "unicode"

// Code point classes as llama.cpp's unicode.cpp sees them
// (unicode_cpt_flags, generated from Unicode data by gen-unicode-data.py):
// the general category's first letter, and White_Space apart.
//
// Go's unicode package is Unicode 15.0.0; llama.cpp's tables (at commit
// 34af94cd) are 15.1.0, which assigned 627 more code points that can occur
// in text: the letters of CJK Extension I (U+2EBF0…U+2EE5D) and the symbols
// U+2FFC…U+2FFF and U+31EF. unicode151 adds them, so that the two agree on
// every code point (checked against unicode-data.cpp's ranges when this was
// written). Everything else 15.1 changed is the same in both.

// class is a code point's general category, as the pre-tokenizers test it.
type class uint8

const (
	other       class = iota // unassigned, control, format, private use, surrogate
	letter                   // \p{L}
	number                   // \p{N}
	mark                     // \p{M}
	punctuation              // \p{P}
	symbol                   // \p{S}
	separator                // \p{Z}
)

// classOf returns the category of r; r outside Unicode is other.
func classOf(r rune) class {
	switch {
	case r < 0 || r > unicode.MaxRune:
		return other
	case unicode.IsLetter(r) || unicode.Is(unicode151Letters, r):
		return letter
	case unicode.IsNumber(r):
		return number
	case unicode.IsMark(r):
		return mark
	case unicode.IsPunct(r):
		return punctuation
	case unicode.IsSymbol(r) || unicode.Is(unicode151Symbols, r):
		return symbol
	case unicode.Is(unicode.Z, r):
		return separator
	}
	return other
}

// isSpace reports whether r has Unicode's White_Space property, llama.cpp's
// unicode_set_whitespace (and, in ASCII, what C++'s \s matches).
func isSpace(r rune) bool { return r >= 0 && unicode.Is(unicode.White_Space, r) }

func isLetter(r rune) bool { return classOf(r) == letter }
func isNumber(r rune) bool { return classOf(r) == number }
func isPunct(r rune) bool  { return classOf(r) == punctuation }

// The code points Unicode 15.1 assigned that unicode-data.cpp classes and
// Go 1.26's Unicode 15.0 tables do not.
var (
	unicode151Letters = &unicode.RangeTable{R32: []unicode.Range32{{Lo: 0x2EBF0, Hi: 0x2EE5D, Stride: 1}}}
	unicode151Symbols = &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0x2FFC, Hi: 0x2FFF, Stride: 1}, {Lo: 0x31EF, Hi: 0x31EF, Stride: 1}}}
)

// decodeLax returns the code points of text as llama.cpp's
// unicode_cpts_from_utf8 reads them: a lead byte and its continuation
// bytes make a code point whatever its value (surrogates and overlong forms
// too, which Go's decoder refuses), and a byte that starts no sequence, or
// one cut short, is U+FFFD.
func decodeLax(dst []rune, text string) []rune {
	for i := 0; i < len(text); {
		c := text[i]
		n, r := 0, rune(0)
		switch {
		case c < 0x80:
			n, r = 1, rune(c)
		case c&0xE0 == 0xC0:
			n, r = 2, rune(c&0x1F)
		case c&0xF0 == 0xE0:
			n, r = 3, rune(c&0x0F)
		case c&0xF8 == 0xF0:
			n, r = 4, rune(c&0x07)
		}
		ok := n > 0 && i+n <= len(text)
		for k := 1; ok && k < n; k++ {
			ok = text[i+k]&0xC0 == 0x80
			r = r<<6 | rune(text[i+k]&0x3F)
		}
		if !ok {
			dst = append(dst, unicode.ReplacementChar)
			i++
			continue
		}
		dst = append(dst, r)
		i += n
	}
	return dst
}

// appendLax appends the UTF-8 of r as llama.cpp's unicode_cpt_to_utf8 writes
// it: surrogates too. Beyond U+10FFFF, where llama.cpp throws (a text with
// the bytes F4 90 80 80 … F7 BF BF BF aborts its tokenize), it writes U+FFFD.
func appendLax(dst []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(dst, byte(r))
	case r < 0x800:
		return append(dst, 0xC0|byte(r>>6), 0x80|byte(r&0x3F))
	case r < 0x10000:
		return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
	case r <= unicode.MaxRune:
		return append(dst, 0xF0|byte(r>>18), 0x80|byte(r>>12&0x3F), 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
	}
	return appendLax(dst, unicode.ReplacementChar)
}
