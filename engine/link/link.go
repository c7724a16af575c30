// Package link reads and writes sessions in URLs, in the readable query form
// that documentation writers type by hand:
//
//	/?model=stories260K&prompt=Once+upon+a+time&steps=20&temperature=0.8&top_p=0.9
//	/?logits=-2.1,0.3,3.1,0.8,0.1,-0.5&vocab=The,cat,sat,on,the,mat&steps=1
//
// Parse turns such a query into a session.Spec and Query turns a Spec back
// into one. The form carries the model, the prompt, the number of steps, the
// sampler settings and hand-typed logits; forced tokens, edited logits and
// changes of settings made along the way do not fit it, and Query reports
// when it drops them. A share link carries the whole session, those too,
// in the URL's fragment instead (see Share links below).
//
// # Parameters
//
// These are all the parameters there are. An absent one keeps its value in
// catalog.Default, the session the playground opens with: model toy,
// prompt "The cat", 0 steps, sampler.DefaultSettings (greedy, seed 42).
//
//	model               a name of package catalog: logits, toy or stories260K, in any case
//	logits              comma-separated logits: finite numbers, or -inf to mask a token
//	vocab               comma-separated tokens; the default is 0,1,2,…
//	prompt              UTF-8 text of at most 4096 bytes; prompt= is the empty prompt
//	steps               a whole number in [0, 4096]
//	sampler             chain or runc
//	temperature         a number from 0 to 100; 0 is greedy
//	top_k               a whole number from 0 to 2^20; 0 is off
//	top_p               a number from 0 to 1; 0 or 1 is off
//	min_p               a number from 0 to 1; 0 is off
//	repetition_penalty  a number from 0 to 100; 0 or 1 is off
//	seed                a whole number from 1 to 2^53 − 1
//
// The sampler's settings, temperature to seed, are sampler.Params, which
// holds their ranges; the error for a value outside one says it in words.
// Numbers are what strconv.ParseFloat reads, except that NaN, Inf and values
// beyond a float64 (1e999) are errors; whole numbers are decimal.
//
// The ranges were wider before sampler.Params: any temperature, top_k and
// repetition penalty, and seeds up to 2^64 − 1. The playground never wrote
// values beyond today's, so only a hand-made link can hold one, and it now
// fails with an error naming the parameter. 2^53 − 1 is the largest seed a
// float64, and so a JavaScript number, holds exactly.
//
// model=logits is package session's model-less session. It needs logits, at
// most 1024 of them and not all -inf, and takes a vocab of the same length
// whose tokens are non-empty, distinct, valid UTF-8 and free of white space
// (the word tokenizer's rule). It has no prompt, and 0 or 1 steps. A query
// with logits but no model means model=logits; logits or vocab with another
// model, and a prompt with model=logits, are errors.
//
// # Errors
//
// Each parameter may be given once, and a name not in the list above (most
// likely a typo) is an error. Parse rejects the alphabetically first
// unknown name, then reads the parameters in the order of the list and
// reports the first problem as a *ParamError, which names the parameter so
// that the playground can point at it. A rule that ties two parameters
// together is checked at the later one: top_k=3 is wrong only after
// sampler=runc, as sampler.Settings.Validate says. Last, Parse checks that
// model=logits got its logits.
//
// Parse does not load models. Whether the prompt's words are in a model's
// vocabulary, or fit its context, the session finds out when it runs.
//
// A value longer than 64 KiB is rejected before it is parsed, and a list is
// counted before it is split, so a hostile link fails fast.
//
// # Share links
//
// A share link carries a State — the whole session, forced tokens, edited
// logits and changes of settings included, and the playground's open view
// — in the URL's
// fragment, which the browser never sends to a server. Encode writes the
// fragment and Decode reads it; the worked example with "mat" forced at
// step 0, open at the softmax view, is
//
//	/#s1.AAZsb2dpdHMAB3NvZnRtYXgBBWNoYWluAAAAAAAAAAIAKgYDVGhlA2NhdANzYXQCb24DdGhlA21hdCsBBgE-ARABAgELAQEABQA
//
// The fragment is "s1." (the format and its version; a later format gets
// another), then base64url (RFC 4648 §5, without padding) of a flags byte
// and the data. The flags are
//
//	bit 0  the data is raw DEFLATE (RFC 1951), which Encode uses only when it is shorter
//	bit 1  a changes section follows the edits; Encode sets it only when there are changes
//
// and the other bits are 0, so that a link made before a section existed
// reads as it always did. The data is these fields, in this order:
//
//	model, prompt, view  string
//	steps                uint
//	settings             the session's settings, those of step 0 (Spec.Sampler)
//	vocab and logits     uint n, then n strings, then n numbers
//	forced               uint n, then n × (step uint, token uint)
//	edits                uint n, then n × (step uint, token uint, logit number)
//	changes              with bit 1: uint n ≥ 0, then n × (step uint, settings)
//
// where settings are the sampler's, as sampler.Params orders them:
//
//	sampler                           string: chain or runc
//	temperature                       number
//	top_k                             uint
//	top_p, min_p, repetition_penalty  number
//	seed                              uint
//
// A uint is an unsigned varint (encoding/binary); a string is its length in
// bytes as a uint, then its bytes; a number is a uint u and a zig-zag
// varint e, meaning the float64 nearest to ±(u>>1)×10^e, negative when u is
// odd. Encode writes the fewest digits that read back exactly, so −2.1 is
// u = 43, e = −1: two bytes where its float64 bits take eight. −Inf is
// −1e999, which overflows to it.
//
// Decode applies the query form's rules where they apply, with the same
// messages: model=logits has 1 to 1024 tokens and no prompt, at most one
// step, and so on. A token may hold a comma, which the query form cannot
// carry. More rules bound what only a share link carries: the fragment is at
// most MaxFragment characters and its data at most MaxDecoded bytes once
// decompressed, with nothing after the last field; every count is checked
// against the bytes left before anything is allocated for it; the view is
// at most 32 letters a–z; a forced token or edit has a step in [0, 4096]
// and, in a logits session, a token of the vocabulary; an edited logit is a
// number or −Inf; a change has a step in [1, 4096] after the step of the
// change before it (session.CheckChanges) and settings that pass
// sampler.Settings.Validate, so there are at most 4096 of them. Encode and
// Decode errors start with "share link: ".
//
// # Query and fragment together
//
// Merge reads an address's query and fragment, such as
// /?temperature=0.5#s1.…, in which the fragment is the base and the query
// overrides it. Exactly:
//
//   - Without a fragment, Merge is Parse, with the view "".
//   - A query that names another model than the fragment's — model=, or
//     logits= without model=, as Parse reads them — starts another session:
//     Merge is Parse of the query, and only the fragment's view stays.
//   - Otherwise Parse reads the query over the fragment's session instead of
//     catalog.Default: each parameter given replaces its field, in Parse's order and
//     with Parse's rules and *ParamError. The sampler's settings in the
//     query are those of step 0 (Spec.Sampler), as in a session without
//     changes. What the query cannot name — forced tokens, edits, changes
//     of settings, the view — stays the fragment's. The result must
//     pass Decode's checks, or Merge says "the query does not fit the share
//     link": logits=1,2,3 over six tokens needs vocab= too.
package link

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"nexttoken/engine/catalog"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// Limits on what a link may ask for.
const (
	maxValue  = 64 << 10 // bytes in any value
	maxPrompt = 4096     // bytes in the prompt
	maxSteps  = 4096
	maxTokens = 1024 // hand-typed logits, as package session allows
	maxQuoted = 40   // bytes of a value quoted in an error message
)

// param is a query parameter. read parses v into s, which holds the
// parameters read before, and says why it cannot.
type param struct {
	name string
	read func(s *session.Spec, v string) error
}

var modes = []string{sampler.Chain, sampler.RunC}

// params are the parameters in the order Parse reads them: the session's,
// then the sampler's numeric settings as sampler.Params gives them.
var params = append([]param{
	{"model", func(s *session.Spec, v string) (err error) {
		s.Model, err = modelName(v)
		return err
	}},
	{"logits", readLogits},
	{"vocab", readVocab},
	{"prompt", readPrompt},
	{"steps", readSteps},
	{"sampler", func(s *session.Spec, v string) (err error) {
		s.Sampler.Mode, err = oneOf(v, modes)
		return err
	}},
}, settings()...)

// settings are the parameters of sampler.Params.
func settings() []param {
	ps := make([]param, len(sampler.Params))
	for i, p := range sampler.Params {
		ps[i] = param{p.Name, func(s *session.Spec, v string) error {
			x, err := readSetting(p, v)
			if err == nil {
				p.Set(&s.Sampler, x)
			}
			return err
		}}
	}
	return ps
}

// ParamError is the problem with one query parameter.
type ParamError struct {
	Param  string // the parameter's name
	Value  string // its value as given (the first, if it was repeated)
	Reason string
}

// Error returns "param: reason".
func (e *ParamError) Error() string {
	name := e.Param
	if !known(name) {
		// An unknown name is whatever was typed: nothing, or a megabyte.
		name = quote(name)
	}
	return name + ": " + e.Reason
}

// Parse turns a query into a session. Absent parameters keep their values
// in catalog.Default; any problem is a *ParamError.
func Parse(q url.Values) (session.Spec, error) {
	return parseOver(catalog.Default(), q)
}

// parseOver is Parse with spec in place of catalog.Default: what q leaves out keeps
// its value in spec.
func parseOver(spec session.Spec, q url.Values) (session.Spec, error) {
	if name, ok := unknown(q); ok {
		return session.Spec{}, &ParamError{Param: name, Value: q.Get(name),
			Reason: "unknown parameter (known: " + strings.Join(names(), ", ") + ")"}
	}
	if len(q["model"]) == 0 && len(q["logits"]) > 0 {
		spec.Model = session.LogitsModel
	}
	for _, p := range params {
		vs := q[p.name]
		if len(vs) == 0 {
			continue
		}
		v := vs[0]
		fail := func(reason string) (session.Spec, error) {
			return session.Spec{}, &ParamError{Param: p.name, Value: v, Reason: reason}
		}
		switch {
		case len(vs) > 1:
			return fail("given more than once")
		case len(v) > maxValue:
			return fail(fmt.Sprintf("%d bytes, more than %d", len(v), maxValue))
		}
		if err := p.read(&spec, v); err != nil {
			return fail(err.Error())
		}
		// Validating after every parameter blames a conflict on the
		// parameter that made it.
		if err := spec.Sampler.Validate(); err != nil {
			return fail(strings.TrimPrefix(err.Error(), "sampler: "))
		}
	}
	if spec.Model == session.LogitsModel {
		if spec.Logits == nil {
			return session.Spec{}, &ParamError{Param: "logits", Reason: "model=logits needs logits"}
		}
		if spec.Vocab == nil {
			spec.Vocab = indexVocab(len(spec.Logits))
		}
		spec.Prompt = ""
	}
	return spec, nil
}

// Query writes spec in the readable form, leaving out what equals catalog.Default
// and what the session ignores (the prompt of a logits session). Parse of
// the query gives spec back, unless spec is one Parse would reject, such as
// one with a comma in a vocabulary token. lossy reports that spec has forced
// tokens, edited logits or changes of settings, which the readable form
// cannot carry.
// url.Values.Encode escapes the commas of logits and vocab as %2C, which
// Parse reads the same.
func Query(spec session.Spec) (q url.Values, lossy bool) {
	q = url.Values{}
	put := func(name, value string, isDefault bool) {
		if !isDefault {
			q.Set(name, value)
		}
	}
	d, logits := catalog.Default(), spec.Model == session.LogitsModel
	put("model", spec.Model, spec.Model == d.Model)
	put("prompt", spec.Prompt, logits || spec.Prompt == d.Prompt)
	put("steps", strconv.Itoa(spec.Steps), spec.Steps == d.Steps)
	s, ds := spec.Sampler, d.Sampler
	put("sampler", s.Mode, s.Mode == "" || s.Mode == ds.Mode)
	for _, p := range sampler.Params {
		v := p.Get(s)
		text := format(v)
		if p.Integer {
			text = strconv.FormatFloat(v, 'f', -1, 64) // never 1e+06, which readSetting rejects
		}
		put(p.Name, text, v == p.Get(ds))
	}
	if logits {
		l := make([]string, len(spec.Logits))
		for i, x := range spec.Logits {
			l[i] = format(x)
		}
		q.Set("logits", strings.Join(l, ","))
		put("vocab", strings.Join(spec.Vocab, ","), slices.Equal(spec.Vocab, indexVocab(len(spec.Logits))))
	}
	return q, len(spec.Forced) > 0 || len(spec.Edits) > 0 || len(spec.Changes) > 0
}

// unknown returns the alphabetically first parameter of q that Parse does
// not know, so that the error does not depend on map order.
func unknown(q url.Values) (string, bool) {
	first, found := "", false
	for name := range q {
		if !known(name) && (!found || name < first) {
			first, found = name, true
		}
	}
	return first, found
}

func known(name string) bool {
	return slices.ContainsFunc(params, func(p param) bool { return p.name == name })
}

func names() []string {
	n := make([]string, len(params))
	for i, p := range params {
		n[i] = p.name
	}
	return n
}

func readLogits(s *session.Spec, v string) error {
	if err := logitsOnly(s); err != nil {
		return err
	}
	entries, err := split(v)
	if err != nil {
		return err
	}
	s.Logits = make([]float64, len(entries))
	for i, e := range entries {
		x, err := strconv.ParseFloat(e, 64)
		if err != nil || !isLogit(x) {
			return fmt.Errorf("token %d: %s is neither a finite number nor -inf", i, quote(e))
		}
		s.Logits[i] = x
	}
	return checkMasked(s.Logits)
}

func readVocab(s *session.Spec, v string) error {
	if err := logitsOnly(s); err != nil {
		return err
	}
	words, err := split(v)
	if err != nil {
		return err
	}
	if err := checkVocab(words); err != nil {
		return err
	}
	// Without logits, Parse reports those missing instead.
	if s.Logits != nil && len(words) != len(s.Logits) {
		return fmt.Errorf("%d tokens for %d logits", len(words), len(s.Logits))
	}
	s.Vocab = words
	return nil
}

// logitsOnly rejects hand-typed logits and vocabularies for a real model,
// which has its own.
func logitsOnly(s *session.Spec) error {
	if s.Model != session.LogitsModel {
		return fmt.Errorf("goes with model=logits, not model=%s", s.Model)
	}
	return nil
}

func readPrompt(s *session.Spec, v string) error {
	switch {
	case s.Model == session.LogitsModel:
		return errors.New("model=logits has no prompt")
	case len(v) > maxPrompt:
		return fmt.Errorf("%d bytes, more than %d", len(v), maxPrompt)
	case !utf8.ValidString(v):
		return errors.New("not valid UTF-8")
	}
	s.Prompt = v
	return nil
}

func readSteps(s *session.Spec, v string) (err error) {
	s.Steps, err = whole(v, stepLimit(s.Model))
	return err
}

// readSetting parses v as a value of p: a decimal whole number, or a
// number as strconv.ParseFloat reads it, in p's range.
func readSetting(p sampler.Param, v string) (float64, error) {
	var x float64
	var err error
	if p.Integer {
		var n int64
		n, err = strconv.ParseInt(v, 10, 64)
		x = float64(n) // beyond 2⁵³ it rounds, but stays beyond every range
	} else {
		x, err = strconv.ParseFloat(v, 64)
	}
	if err != nil || p.Check(x) != nil {
		return 0, fmt.Errorf("%s is not %s", quote(v), p.Range())
	}
	return x, nil
}

// split cuts a comma-separated list, counting its entries before it
// allocates them.
func split(v string) ([]string, error) {
	if n := strings.Count(v, ",") + 1; n > maxTokens {
		return nil, fmt.Errorf("%d entries, more than %d", n, maxTokens)
	}
	return strings.Split(v, ","), nil
}

// modelName returns the catalog's spelling of the model v names.
func modelName(v string) (string, error) {
	if m, ok := catalog.Lookup(v); ok {
		return m.Name, nil
	}
	return "", fmt.Errorf("%s is not one of %s", quote(v), strings.Join(catalog.Names(), ", "))
}

// oneOf returns the name among names that v spells, ignoring case.
func oneOf(v string, names []string) (string, error) {
	for _, n := range names {
		if strings.EqualFold(v, n) {
			return n, nil
		}
	}
	return "", fmt.Errorf("%s is not one of %s", quote(v), strings.Join(names, ", "))
}

// whole parses v as a whole number in [0, most].
func whole(v string, most int) (int, error) {
	n, err := strconv.Atoi(v)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is out of range", quote(v))
	case err != nil:
		return 0, fmt.Errorf("%s is not a whole number", quote(v))
	case n < 0 || n > most:
		return 0, outside(v, most)
	}
	return n, nil
}

func outside(v string, most int) error {
	return fmt.Errorf("%s is outside [0, %d]", quote(v), most)
}

// quote quotes v for an error message, cut short at a rune boundary so that
// a hostile value cannot make the message huge.
func quote(v string) string {
	if len(v) <= maxQuoted {
		return strconv.Quote(v)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return strconv.Quote(v[:cut]) + "…"
}

// format writes x so that ParseFloat reads it back exactly.
func format(x float64) string {
	if math.IsInf(x, -1) {
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// indexVocab is the default vocabulary of n hand-typed logits: "0", "1", ….
func indexVocab(n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = strconv.Itoa(i)
	}
	return v
}
