package link

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"nexttoken/engine/session"
)

// Rules that the query form and share links both apply.

// checkVocab applies the word tokenizer's rule to hand-typed tokens: each is
// non-empty, valid UTF-8 and free of white space, and no two are the same.
func checkVocab(words []string) error {
	seen := make(map[string]int, len(words))
	for i, w := range words {
		switch first, dup := seen[w]; {
		case w == "":
			return fmt.Errorf("token %d is empty", i)
		case !utf8.ValidString(w):
			return fmt.Errorf("token %d, %s, is not valid UTF-8", i, Quote(w))
		case strings.IndexFunc(w, unicode.IsSpace) >= 0:
			return fmt.Errorf("token %d, %s, contains white space", i, Quote(w))
		case dup:
			return fmt.Errorf("tokens %d and %d are both %s", first, i, Quote(w))
		}
		seen[w] = i
	}
	return nil
}

// isLogit reports whether x may be a logit: a number, or −Inf to mask a token.
func isLogit(x float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 1)
}

// checkMasked rejects logits that leave the sampler nothing to choose.
func checkMasked(logits []float64) error {
	if !slices.ContainsFunc(logits, func(x float64) bool { return !math.IsInf(x, -1) }) {
		return errors.New("every logit is -inf, so no token can be chosen")
	}
	return nil
}

// stepLimit is the most steps a session of model can ask for.
func stepLimit(model string) int {
	if model == session.LogitsModel {
		return 1 // hand-typed logits give one step
	}
	return MaxSteps
}
