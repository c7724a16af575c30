package tokenizer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A byte-level BPE vocabulary is trained on words, not on whole texts: a
// pre-tokenizer first splits the text into words (" world", "!", "\n\n")
// and no merge ever crosses from one word into the next. Each model family
// splits differently; a GGUF file names its way in tokenizer.ggml.pre.
//
// llama.cpp (src/llama-vocab.cpp, llm_tokenizer_bpe) maps each name to a
// list of regular expressions, and unicode.cpp's unicode_regex_split applies
// them one after another, each splitting every piece the previous ones made;
// text a regular expression does not match between two matches is a piece
// too. A few expressions have a hand-written splitter there
// (unicode_regex_split_custom_gpt2, _llama3, _qwen2); the others run
// through std::regex with each non-ASCII code point replaced by one byte
// standing for its category, or through std::wregex. Go's regexp has no
// lookahead ("\s+(?!\S)": white space not followed by a non-space), so every
// expression here is a splitter written by hand over code point classes;
// each names the expression it implements.

// splitter appends to out the lengths, in code points, of the pieces it
// splits s into; they add up to len(s).
type splitter func(s []rune, out []int) []int

// Pre is a pre-tokenizer: the splitters llama.cpp uses for a
// tokenizer.ggml.pre value, and what that value implies.
type Pre struct {
	Name   string
	AddBOS bool // llama.cpp's add_bos when the file does not say
	// ignoreMerges takes a word that is a token whole, without merging
	// (llama.cpp's ignore_merges, as Hugging Face's tokenizers for Llama 3).
	ignoreMerges bool
	splitters    []splitter
}

// pres maps each supported tokenizer.ggml.pre to its pre-tokenizer, as
// llama_vocab::impl::load maps it to a LLAMA_VOCAB_PRE_TYPE. Names whose
// type does more than split and set add_bos or ignore_merges (an added SEP,
// escaped white space, another tokenizer) are not here.
// The map is made on first use: a page that opens no GGUF vocabulary does
// not make it at start.
var pres = sync.OnceValue(func() map[string]Pre {
	pres := map[string]Pre{}
	add := func(p Pre, names ...string) {
		for _, n := range names {
			p.Name = n
			pres[n] = p
		}
	}
	gpt2 := []splitter{splitGPT2}
	llama3 := []splitter{splitLlama3(3)}
	starcoder := []splitter{single(isNumber), splitGPT2}
	add(Pre{splitters: []splitter{run(isDefaultPunct), splitGPT2, run(isNumber), splitDigits3}}, "default")
	add(Pre{splitters: llama3, ignoreMerges: true, AddBOS: true},
		"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano")
	add(Pre{splitters: llama3}, "dbrx", "smaug-bpe")
	add(Pre{splitters: []splitter{splitLlama3(1)}}, "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan", "solar-open")
	add(Pre{splitters: []splitter{
		single(isCRLF), spaceThen(wide(deepseekLetters.has)), spaceThen(wide(deepseekPunct.has)),
		splitTrailingSpace, run(wide(cjk.has)), run(isNumber),
	}}, "deepseek-llm")
	add(Pre{splitters: []splitter{
		single(isCRLF), spaceThen(isLetter), spaceThen(isPunct), run(wide(cjk.has)), single(isNumber),
	}}, "deepseek-coder")
	add(Pre{splitters: []splitter{run(isFalconPunct), splitGPT2, splitDigits3}}, "falcon")
	add(Pre{splitters: starcoder}, "starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2")
	add(Pre{splitters: gpt2}, "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
		"modern-bert", "mpt", "olmo", "jais", "trillion", "granite-docling", "exaone4")
	return pres
})

// LookupPre returns the pre-tokenizer named name; "" is "default", as in
// llama.cpp (which warns that generation will be degraded).
func LookupPre(name string) (Pre, error) {
	if name == "" {
		name = "default"
	}
	if p, ok := pres()[name]; ok {
		return p, nil
	}
	return Pre{}, fmt.Errorf("tokenizer: pre-tokenizer %q is not supported; the supported ones are %s", name, strings.Join(PreNames(), ", "))
}

// PreNames lists the supported pre-tokenizer names, sorted.
func PreNames() []string {
	names := make([]string, 0, len(pres()))
	for n := range pres() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// split returns the words of text: its code points cut into pieces by each
// splitter in turn, each piece as the UTF-8 llama.cpp rebuilds from its code
// points (so a byte that is not UTF-8 is U+FFFD).
func (p *Pre) split(text string) []string {
	cpts := decodeLax(nil, text)
	pieces := []int{len(cpts)}
	for _, split := range p.splitters {
		next := make([]int, 0, len(pieces))
		start := 0
		for _, n := range pieces {
			next = split(cpts[start:start+n], next)
			start += n
		}
		pieces = next
	}
	words := make([]string, len(pieces))
	var buf []byte
	start := 0
	for i, n := range pieces {
		buf = buf[:0]
		for _, r := range cpts[start : start+n] {
			buf = appendLax(buf, r)
		}
		words[i] = string(buf)
		start += n
	}
	return words
}

// pieces collects the pieces of a splitter: end(i) closes the piece that
// runs up to code point i, if it is not empty.
type pieces struct {
	out  []int
	last int // where the open piece starts
}

func (p *pieces) end(i int) int {
	n := i - p.last
	if n > 0 {
		p.out = append(p.out, n)
	}
	p.last = i
	return n
}

// cpt is what the hand-written splitters of unicode.cpp test of the code
// point at a position: its class and whether it is white space; ok is false
// past the end of the piece (llama.cpp's OUT_OF_RANGE, whose flags are 0).
type cpt struct {
	class     class
	space, ok bool
}

func at(s []rune, i int) cpt {
	if i >= len(s) {
		return cpt{}
	}
	return cpt{class: classOf(s[i]), space: isSpace(s[i]), ok: true}
}

func (c cpt) letter() bool { return c.class == letter }
func (c cpt) number() bool { return c.class == number }

// rest is [^\s\p{L}\p{N}], for a code point of the piece.
func (c cpt) rest() bool { return c.ok && !c.space && c.class != letter && c.class != number }

// contraction returns the end of the contraction 's 't 're 've 'm 'll 'd
// at pos, or 0; any case if fold.
func contraction(s []rune, pos int, fold bool) int {
	if s[pos] != '\'' || pos+1 >= len(s) {
		return 0
	}
	lower := func(r rune) rune {
		if fold && 'A' <= r && r <= 'Z' { // unicode_tolower: only ASCII maps to these letters
			return r + 'a' - 'A'
		}
		return r
	}
	switch lower(s[pos+1]) {
	case 's', 't', 'm', 'd':
		return pos + 2
	}
	if pos+2 < len(s) {
		switch string([]rune{lower(s[pos+1]), lower(s[pos+2])}) {
		case "re", "ve", "ll":
			return pos + 3
		}
	}
	return 0
}

// spaces ends the pieces of white space at pos for the custom splitters:
// with crlf, \s*[\r\n]+ (up to the last CR or LF of the run) first; then
// \s+(?!\S), a run of two or more before a non-space less its last space;
// then \s+; and otherwise the one code point at pos. It returns the end.
func spaces(s []rune, pos int, p *pieces, crlf bool) int {
	n, lastCRLF := 0, 0
	for at(s, pos+n).space {
		if r := s[pos+n]; crlf && (r == '\r' || r == '\n') {
			lastCRLF = pos + n + 1
		}
		n++
	}
	switch {
	case lastCRLF > 0:
		pos = lastCRLF
	case n > 1 && pos+n < len(s):
		pos += n - 1
	case n > 0:
		pos += n
	default:
		pos++
	}
	p.end(pos)
	return pos
}

// splitGPT2 is GPT-2's expression
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// as unicode_regex_split_custom_gpt2 runs it: contractions in lower case
// only, and a run of white space before a non-space left one space short,
// for that space to start the next word (" world").
func splitGPT2(s []rune, out []int) []int {
	p := pieces{out: out}
	for pos := 0; pos < len(s); {
		if end := contraction(s, pos, false); end > 0 {
			pos = end
			p.end(pos)
			continue
		}
		space := s[pos] == ' '
		next := at(s, pos)
		if space { // ' ?' before a class: the class is tested after it
			next = at(s, pos+1)
		}
		var in func(cpt) bool
		switch {
		case next.letter():
			in = cpt.letter
		case next.number():
			in = cpt.number
		case next.rest():
			in = cpt.rest
		}
		if in == nil {
			pos = spaces(s, pos, &p, false)
			continue
		}
		if space {
			pos++
		}
		for in(at(s, pos)) {
			pos++
		}
		p.end(pos)
	}
	return p.out
}

// splitLlama3 is Llama 3's expression (digits 3) and Qwen2's (digits 1)
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// as unicode_regex_split_custom_llama3 and _qwen2 run it.
func splitLlama3(digits int) splitter {
	return func(s []rune, out []int) []int {
		p := pieces{out: out}
		for pos := 0; pos < len(s); {
			if end := contraction(s, pos, true); end > 0 {
				pos = end
				p.end(pos)
				continue
			}
			c, here := s[pos], at(s, pos)
			// [^\r\n\p{L}\p{N}]?\p{L}+
			if c != '\r' && c != '\n' && !here.number() && (here.letter() || at(s, pos+1).letter()) {
				pos++
				for at(s, pos).letter() {
					pos++
				}
				p.end(pos)
				continue
			}
			// \p{N}{1,3}: a run of digits in pieces of up to digits
			if here.number() {
				start := pos
				for at(s, pos).number() {
					if pos++; pos-start >= digits {
						p.end(pos)
						start = pos
					}
				}
				p.end(pos)
				continue
			}
			// ' ?[^\s\p{L}\p{N}]+[\r\n]*'; past the end counts as such a
			// code point after the space, as in llama.cpp
			next := here
			if c == ' ' {
				next = at(s, pos+1)
			}
			if !next.space && !next.letter() && !next.number() {
				if c == ' ' {
					pos++
				}
				for at(s, pos).rest() {
					pos++
				}
				for pos < len(s) && (s[pos] == '\r' || s[pos] == '\n') {
					pos++
				}
				p.end(pos)
				continue
			}
			pos = spaces(s, pos, &p, true)
		}
		return p.out
	}
}

// regexSplit splits s as std::regex_iterator walks a simple expression:
// match returns the end of the match starting at i, or i if none does;
// each match is a piece, and so is the text between two matches.
func regexSplit(match func(s []rune, i int) int) splitter {
	return func(s []rune, out []int) []int {
		p := pieces{out: out}
		for i := 0; i < len(s); {
			if end := match(s, i); end > i {
				p.end(i)
				p.end(end)
				i = end
			} else {
				i++
			}
		}
		p.end(len(s))
		return p.out
	}
}

// run is [C]+ for the class in.
func run(in func(rune) bool) splitter {
	return regexSplit(func(s []rune, i int) int {
		for i < len(s) && in(s[i]) {
			i++
		}
		return i
	})
}

// single is [C].
func single(in func(rune) bool) splitter {
	return regexSplit(func(s []rune, i int) int {
		if in(s[i]) {
			return i + 1
		}
		return i
	})
}

// spaceThen is \s?[C]+: a white space is taken if C follows it (no class
// here holds white space, so the space cannot start the run itself).
func spaceThen(in func(rune) bool) splitter {
	return regexSplit(func(s []rune, i int) int {
		start := i
		if isSpace(s[i]) && i+1 < len(s) && in(s[i+1]) {
			i++
		}
		if !in(s[i]) {
			return start
		}
		for i < len(s) && in(s[i]) {
			i++
		}
		return i
	})
}

// splitDigits3 is [0-9][0-9][0-9].
var splitDigits3 = regexSplit(func(s []rune, i int) int {
	if i+3 <= len(s) && isDigit(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) {
		return i + 3
	}
	return i
})

// splitTrailingSpace is \s+$: the white space that ends the piece.
func splitTrailingSpace(s []rune, out []int) []int {
	start := len(s)
	for start > 0 && isSpace(s[start-1]) {
		start--
	}
	p := pieces{out: out}
	p.end(start)
	p.end(len(s))
	return p.out
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }
func isCRLF(r rune) bool  { return r == '\r' || r == '\n' }

// isDefaultPunct is [\p{P}\$\+<=>\^~\|], and isFalconPunct adds `.
func isDefaultPunct(r rune) bool { return isPunct(r) || strings.ContainsRune("$+<=>^~|", r) }
func isFalconPunct(r rune) bool  { return isDefaultPunct(r) || r == '`' }

// wide tests in on the code point std::wregex sees: llama.cpp replaces
// white space beyond ASCII by a vertical tab first, so that \s matches it
// and no class of other code points (such as 　-。) does.
func wide(in func(rune) bool) func(rune) bool {
	return func(r rune) bool {
		if r > 0x7F && isSpace(r) {
			r = '\v'
		}
		return in(r)
	}
}

// runeClass is a bracket expression of code points and ranges, such as
// "A-Za-zµ".
type runeClass [][2]rune

func newRuneClass(spec string) runeClass {
	rs := []rune(spec)
	var c runeClass
	for i := 0; i < len(rs); i++ {
		if i+2 < len(rs) && rs[i+1] == '-' {
			c = append(c, [2]rune{rs[i], rs[i+2]})
			i += 2
			continue
		}
		c = append(c, [2]rune{rs[i], rs[i]})
	}
	slices.SortFunc(c, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	// Merge overlapping ranges (ࠀ-一 holds 一-龥), so that one search finds r.
	merged := c[:0]
	for _, r := range c {
		if k := len(merged) - 1; k >= 0 && r[0] <= merged[k][1]+1 {
			merged[k][1] = max(merged[k][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

func (c runeClass) has(r rune) bool {
	i := sort.Search(len(c), func(i int) bool { return c[i][1] >= r })
	return i < len(c) && c[i][0] <= r
}

// The classes of DeepSeek's expressions, as written in llama-vocab.cpp.
var (
	deepseekLetters = newRuneClass("A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃")
	deepseekPunct   = newRuneClass("!-/:-~！-／：-～‘-‟　-。")
	cjk             = newRuneClass("一-龥ࠀ-一가-퟿")
)
