package llamacpp

import (
	"math"
	"slices"
	"strings"

	"nexttoken/engine/internal/expf"
)

// DRY ("Don't Repeat Yourself", Koboldcpp PR 982 by pi6am, as llama.cpp
// ports it in src/llama-sampler.cpp at 34af94cd: llama_sampler_init_dry,
// get_overlapping_token_sequences, llama_sampler_dry_apply) penalises the
// tokens that would extend a repetition. If the last n tokens of the
// history end with a sequence s of length L that also occurs earlier,
// followed there by token t, then emitting t would repeat s·t; when
// L ≥ allowed_length, t's logit loses
//
//	multiplier · base^(L − allowed_length)
//
// with L the longest such repetition ending in front of t. The exponent
// is capped so that base^exponent stays below float32's maximum. The
// lengths come from the Z-algorithm run backwards over the last n tokens:
// for each position k, how many tokens ending there equal the tokens at
// the end of the history.
//
// Sequence breakers ("\n", ":", "\"", "*" by default) stop a repetition
// from reaching across them: the scan backwards from the newest token
// stops at the first breaker, and no repetition may be longer than the
// tokens after it; a token that is itself a breaker is never penalised.
// A breaker is text, so llama.cpp turns it into token sequences through
// the vocabulary (get_overlapping_token_sequences): every token whose
// piece contains the breaker is a breaker on its own, and a token whose
// piece ends with the breaker's first bytes is the head of a sequence whose
// tail is the rest of the breaker, tokenized, at most 20 tokens (and a
// breaker at most 40 bytes).

// Vocab is what DRY reads of a model's vocabulary, as
// get_overlapping_token_sequences reads llama.cpp's llama_vocab.
type Vocab interface {
	// Len is the number of tokens, llama_vocab::n_tokens.
	Len() int
	// Piece is llama_vocab::detokenize({id}, true): the token's text
	// alone. For a SentencePiece vocabulary that is the piece with "▁"
	// read as a space and its one leading space removed (add_space_prefix),
	// a byte token's byte, and a control token's own text, such as "<s>".
	Piece(id int32) string
	// Tokenize is llama_vocab::tokenize(text, false, false): text's tokens
	// without BOS or EOS. DRY calls it only for a breaker of two bytes or
	// more whose start ends a token's piece.
	Tokenize(text string) []int32
}

// DefaultBreakers are common_params_sampling's dry_sequence_breakers.
var DefaultBreakers = []string{"\n", ":", "\"", "*"}

// The limits of llama_sampler_init_dry.
const (
	dryMaxBreakerBytes = 40 // MAX_CHAR_LEN: a longer breaker is cut
	dryMaxTail         = 20 // MAX_SEQ_LEN: a breaker's tail keeps at most this many tokens
)

// dryOn reports whether llama_sampler_init_dry makes a DRY sampler of p
// rather than the empty "?dry", which does nothing; a negative
// penalty_last_n is 0 there.
func (p *Params) dryOn() bool {
	return p.DryMultiplier != 0 && p.DryBase >= 1 && p.DryPenaltyLastN > 0
}

// dryBreakers is llama_sampler_init_dry's processing of p.DryBreakers: by
// head token, the tails of the breaker sequences that start with it (an
// empty tail: the head alone is a breaker).
func dryBreakers(p *Params) map[int32][][]int32 {
	seqs := map[int32][][]int32{}
	for _, b := range p.DryBreakers {
		if b == "" {
			continue // skipped with a warning
		}
		if len(b) > dryMaxBreakerBytes {
			b = b[:dryMaxBreakerBytes]
		}
		overlappingSequences(p.Vocab, b, seqs)
	}
	return seqs
}

// overlappingSequences is get_overlapping_token_sequences with max_tail_len
// dryMaxTail: the sequences of tokens that spell str, or end with it, by
// their first token.
func overlappingSequences(v Vocab, str string, seqs map[int32][][]int32) {
	add := func(head int32, tail []int32) {
		if !slices.ContainsFunc(seqs[head], func(t []int32) bool { return slices.Equal(t, tail) }) {
			seqs[head] = append(seqs[head], tail)
		}
	}
	for id := range int32(v.Len()) {
		word := v.Piece(id)
		if strings.Contains(word, str) {
			add(id, nil)
			continue
		}
		// Every place where the word ends with a start of str: the rest
		// of str, tokenized, is the tail after this token.
		for pos := strings.IndexByte(word, str[0]); pos >= 0; {
			match, i := true, 1
			for ; i < len(str) && pos+i < len(word); i++ {
				if word[pos+i] != str[i] {
					match = false
					break
				}
			}
			if match {
				tail := v.Tokenize(str[i:])
				add(id, tail[:min(len(tail), dryMaxTail)])
			}
			next := strings.IndexByte(word[pos+1:], str[0])
			if next < 0 {
				break
			}
			pos += 1 + next
		}
	}
}

// dry is llama_sampler_dry_apply on the last DryPenaltyLastN tokens of
// history (its ring buffer of accepted tokens).
func (c *Chain) dry(a *array, history []int32) {
	p := &c.p
	last := history[max(0, len(history)-int(p.DryPenaltyLastN)):]
	n := len(last)
	allowed := int(p.DryAllowedLength)
	if n <= allowed {
		return
	}
	back := func(i int) int32 { return last[n-1-i] } // ring_buffer::rat: 0 is the newest

	// Step 1: the newest breaker limits how long a repetition may be.
	repLimit := n
	for i := range n {
		tails, ok := c.breakers[back(i)]
		if !ok {
			continue
		}
		longest := -1
		for _, tail := range tails {
			if len(tail) > longest && len(tail) <= i && tailFollows(tail, back, i) {
				longest = len(tail)
			}
		}
		if longest >= 0 {
			repLimit = i - longest
			break
		}
	}
	if repLimit < allowed {
		return
	}

	// Step 2: the Z-algorithm from the newest token backwards: count[n−1−k]
	// is how many tokens ending k places back equal the newest ones, at
	// most repLimit.
	c.dryCount = slices.Grow(c.dryCount[:0], n)[:n]
	count := c.dryCount
	clear(count)
	end := n - 1
	lt, rt := 0, 0
	for k := 1; k < n; k++ {
		if k > rt {
			m := 0
			for m+k < n && back(m) == back(m+k) {
				m++
			}
			count[end-k] = min(m, repLimit)
			if m > 0 {
				lt, rt = k, k+m-1
			}
			continue
		}
		pair, rightLen := k-lt, rt-k+1
		if count[end-pair] < rightLen {
			count[end-k] = min(count[end-pair], repLimit)
			continue
		}
		i := rt + 1
		for i < n && back(i) == back(i-k) {
			i++
		}
		count[end-k] = min(i-k, repLimit)
		lt, rt = k, i-1
	}

	// Step 3: the token after each repetition long enough would extend
	// it; keep the longest repetition each such token extends.
	clear(c.dryLongest)
	for i := range n - 1 {
		if l := count[i]; l >= allowed {
			t := back(n - 2 - i)
			if prev, ok := c.dryLongest[t]; !ok || prev < l {
				c.dryLongest[t] = l
			}
		}
	}

	// Step 4: the penalties, with base^exponent kept below float32's
	// maximum: FLOAT_MAX_LOG / logf(base), truncated.
	const floatMaxLog = float32(88.7228391)
	maxExponent := 0
	if p.DryBase > 1.000001 {
		maxExponent = int(floatMaxLog / expf.Log(p.DryBase))
	}
	for i := range a.data {
		t := &a.data[i]
		l, ok := c.dryLongest[t.ID]
		if !ok || slices.ContainsFunc(c.breakers[t.ID], func(tail []int32) bool { return len(tail) == 0 }) {
			continue
		}
		exponent := l - allowed
		if maxExponent > 0 && exponent > maxExponent {
			exponent = maxExponent
		}
		// std::pow(float, int) is pow in double; the product is rounded to
		// double, then to float.
		t.Logit -= float32(float64(p.DryMultiplier) * powInt(float64(p.DryBase), exponent))
	}
	a.sorted = false
}

// tailFollows reports whether the tokens after the one i places back are
// tail, in order.
func tailFollows(tail []int32, back func(int) int32, i int) bool {
	for off, t := range tail {
		if t != back(i-off-1) {
			return false
		}
	}
	return true
}

// powInt is x^n for a whole n ≥ 0, correctly rounded: squaring in
// double-double arithmetic (a double and the error of its rounding, with
// FMA) carries about 104 bits, and DRY's exponents are at most a few
// thousand. glibc's pow, which llama.cpp calls, is within 0.52 ulp and
// so differs in the last bit of about one double in 1,200 (as DRY calls
// it); multiplied and rounded to float32 as DRY's penalty, the two agreed
// on 10⁷ random inputs (TestGlibcPowInt).
func powInt(x float64, n int) float64 {
	hi, lo := 1.0, 0.0
	bh, bl := x, 0.0
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			hi, lo = mulDD(hi, lo, bh, bl)
		}
		bh, bl = mulDD(bh, bl, bh, bl)
	}
	return hi + lo
}

// mulDD multiplies two double-double numbers.
func mulDD(ah, al, bh, bl float64) (hi, lo float64) {
	p := ah * bh
	e := math.FMA(ah, bh, -p) + (ah*bl + al*bh)
	hi = p + e
	return hi, e - (hi - p)
}
