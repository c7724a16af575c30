// Package link reads and writes sessions in URLs, in the readable query form
// that documentation writers type by hand:
//
//	/?model=stories260K&prompt=Once+upon+a+time&steps=20&temperature=0.8&top_p=0.9
//	/?logits=-2.1,0.3,3.1,0.8,0.1,-0.5&vocab=The,cat,sat,on,the,mat&steps=1
//
// Parse turns such a query into a session.Spec; Merge turns it, with a
// share link's fragment, into a State, the session and the page's part of
// the link; Query turns a session back into a query. Parse and Merge
// refuse a link with one bad part; Open, the page's reader, keeps what
// reads and says in words what it left out. The form carries the
// model, the prompt, the number of steps, the sampler settings and
// hand-typed logits; forced tokens, edited logits
// and changes of settings made along the way do not fit it, and Query
// reports when it drops them. A share link carries the whole State, those
// too, in the URL's fragment instead (see Share links below).
//
// # The session and the page
//
// A link carries a session, which link reads and checks, and the page's
// part (Page): the view it has open, the step on display and its records,
// which link carries without reading them. link knows where they go in a
// share link and checks only the bounds the format sets; what they mean,
// and the page's own query parameters, are the page's (the playground's
// are package play's, which reads them with PageParams). The step on
// display is a field of Page, not a record, for two reasons: its place in
// the format is fixed (flag bit 2, between the changes and the extras)
// since before the extras, and it is a step of the session, so Merge and
// Open drop it with the session when the query names another model.
//
// # Parameters
//
// These are the parameters link reads. An absent one keeps its value in
// catalog.Default, the session the playground opens with: model toy,
// prompt "The cat", 0 steps, sampler.DefaultSettings (greedy, seed 42).
//
//	model               a name of package catalog: logits, toy or stories260K
//	logits              comma-separated logits: finite numbers, or -inf to mask a token
//	vocab               comma-separated tokens; the default is 0,1,2,…
//	prompt              UTF-8 text of at most 4096 bytes; prompt= is the empty prompt
//	steps               a whole number in [0, 4096]
//	sampler             chain, runc, llama.cpp or hf, in any case; or one of
//	                    llama.cpp's other chains: mirostat, mirostat2
//	                    (llama.cpp mode with mirostat=1 or 2), or letters
//	                    such as edkt (llama.cpp mode with that sequence of
//	                    stages), as compare.SetChain reads them
//	temperature         a number from 0 to 100; 0 is greedy
//	top_k               a whole number from 0 to 2^20; 0 is off
//	top_p               a number from 0 to 1; 0 or 1 is off
//	min_p               a number from 0 to 1; 0 is off
//	repetition_penalty  a number from 0 to 100; 0 or 1 is off
//	seed                a whole number from 1 to 2^53 − 1
//	mirostat            llama.cpp mode only: 0 (off), 1 or 2
//	mirostat_tau        a number from 0 to 100 (llama.cpp's default 5)
//	mirostat_eta        a number from 0 to 10 (llama.cpp's default 0.1)
//	dry_multiplier      llama.cpp mode only: a number from 0 to 100; 0 is off
//	dry_base            a number from 0 to 100, at least 1 with DRY on (1.75)
//	dry_allowed_length  a whole number from 0 to 4096 (2)
//	dry_penalty_last_n  a whole number from 0 to 2^20; 0 is off (64)
//	ignore_eos          1: step 0's settings ignore the end of text: the
//	                    tokens that end a text (EOS, BOS) are masked, as
//	                    llama.cpp's --ignore-eos (sampler.Settings.IgnoreEOS
//	                    of Spec.Sampler); 0, the default, not
//
// Names match in any case (Temperature= is temperature=), as do the values
// that are names (model=STORIES260k, sampler=RunC). Any other parameter is
// ignored: a shared address gathers parameters from elsewhere (utm_source=,
// fbclid=, ref=), and some belong to the page, not the session (the
// playground's embed=, theme=, view=, at=, compare=, compare_own=), which
// PageParams hands to the page as given.
//
// The sampler's settings, temperature to seed, are sampler.Params, and
// mirostat to dry_penalty_last_n sampler.LlamaParams, which hold their
// ranges; the error for a value outside one says it in words.
//
// A sampler= that names another runtime's chain (llama.cpp, mirostat,
// mirostat2, llama.cpp letters, hf) starts from that runtime's defaults
// for every setting the query does not give, as the command line's
// --sampler and the page's decoding select do (compare.ChainSettings, the
// one rule): ?sampler=llama.cpp is temperature 0.8, top_k 40, top_p 0.95,
// min_p 0.05, with mirostat and DRY off and their settings at llama.cpp's
// defaults (in brackets above); ?sampler=hf is temperature 1, top_k 50,
// top_p 1. The seed is never a runtime's: absent, it is the one the
// settings had; a share link's settings are what it holds.
// sampler=chain or runc keeps the settings it is read over but for what
// its mode cannot have. Mirostat or DRY switched on by the query takes
// llama.cpp's defaults for its settings that are 0 and not given
// (compare.StageDefaults); a share link's own stay as they are.
// Numbers are what strconv.ParseFloat reads, except that NaN, Inf and values
// beyond a float64 (1e999) are errors; whole numbers are decimal. A value
// outside its range (a hand-made link's: the playground writes none) fails
// with an error naming the parameter. 2^53 − 1 is the largest seed a
// float64, and so a JavaScript number, holds exactly.
//
// A model named opens as package catalog opens it: model=stories260K alone
// is stories260K after its own prompt, "Once upon a time", and
// model=logits alone is the worked example, six words and their logits.
//
// model=logits is package session's model-less session. Its logits, at
// most 1024 and not all -inf, replace the worked example's, with the
// vocabulary 0, 1, 2, … unless vocab gives one of the same length, whose
// tokens are non-empty, distinct, valid UTF-8 and free of white space (the
// word tokenizer's rule). It has no prompt, and 0 or 1 steps. A query with
// logits but no model means model=logits; logits or vocab with another
// model, and a prompt with model=logits, are errors.
//
// The filters top_k, top_p and min_p act only when sampling: greedy
// decoding takes the most probable token, whatever they keep. So a reader
// who switches one on over greedy settings wants sampling, and gets it at
// temperature 1: ?top_p=0.9 is ?top_p=0.9&temperature=1. An explicit
// temperature=0 keeps greedy decoding, and Query writes it whenever a
// greedy session has a filter on.
//
// # Errors
//
// Each parameter may be given once, in any spelling of its name. Parse
// reads the parameters in the order of the list and reports the first
// problem as a *ParamError, which names the parameter so that the
// playground can point at it. A rule that ties two parameters together is
// checked at the later one: top_k=3 is wrong only after sampler=runc, as
// sampler.Settings.Validate says. What
// llama.cpp's and Hugging Face's own rules refuse (session.CheckSettings:
// a seed beyond 32 bits for llama.cpp, temperature 0 for Hugging Face,
// whose greedy decoding is do_sample=False) is checked once every
// parameter is read, and blamed on sampler.
//
// Parse does not load models. Whether the prompt's words are in a model's
// vocabulary, or fit its context, the session finds out when it runs.
//
// A value longer than 64 KiB is rejected before it is parsed, and a list is
// counted before it is split, so a hostile link fails fast.
//
// Parse takes the query decoded, as url.Values holds it. A query with a %
// that starts no escape, such as prompt=100%, is not valid in a URL, and
// url.ParseQuery drops the parameter with an error that does not name it;
// ParseQuery reads such a query and names the parameter in a *ParamError.
//
// # Share links
//
// A share link carries a State — the whole session, forced tokens, edited
// logits, changes of settings and the generation tree included, and the
// page's part: its open view, the step on display and its records — in
// the URL's fragment, which the browser never sends to a server. Encode writes the fragment and Decode reads it; the
// worked example with "mat" forced at step 0, open at the softmax view, is
//
//	/#s1.AAZsb2dpdHMAB3NvZnRtYXgBBWNoYWluAAAAAAAAAAIAKgYDVGhlA2NhdANzYXQCb24DdGhlA21hdCsBBgE-ARABAgELAQEABQA
//
// The fragment is "s1." (the format and its version; a later format gets
// another), then base64url (RFC 4648 §5, without padding) of a flags byte
// and the data. The flags are
//
//	bit 0  the data is raw DEFLATE (RFC 1951), which Encode uses only when it is shorter
//	bit 1  a changes section follows the edits; Encode sets it only when there are changes
//	bit 2  the step on display follows the changes; Encode sets it only when there is one
//	bit 3  the extras section follows last; Encode sets it only when it has a record
//	bit 4  the extras hold a record that changes the session (a tag of 32 or more)
//
// and the other bits are 0, so that a link made before a section existed
// reads as it always did; Decode refuses a link with another bit set. The data is these fields, in this order:
//
//	model, prompt, view  string; the view is Page.View
//	steps                uint
//	settings             the session's settings, those of step 0 (Spec.Sampler)
//	vocab and logits     uint n, then n strings, then n numbers
//	forced               uint n, then n × (step uint, token uint)
//	edits                uint n, then n × (step uint, token uint, logit number)
//	changes              with bit 1: uint n, then n × (step uint, settings)
//	at                   with bit 2: uint, Page.At
//	extras               with bit 3: uint n, then n × (tag uint, record string)
//
// where settings are the sampler's, as sampler.Params orders them:
//
//	sampler                           string: chain, runc, llama.cpp or hf
//	temperature                       number
//	top_k                             uint
//	top_p, min_p, repetition_penalty  number
//	seed                              uint
//
// The extras section is where new fields go without a new flag or
// version: each record is a tag and its fields written as one string,
// whose length lets a reader skip a tag it does not know. Tags are at
// least 1 and ascending, so each appears once; n is at most 64. A record
// of a tag from 1 to 31 is the page's, and carries only what the page
// shows: Decode returns them all in Page.Records, as they are, and the
// page skips one it does not know, so a newer link opens in an older
// playground without what that playground cannot show. Their tags and
// fields are the page's to define (the playground's, tag 1 the compare
// card, are package play's). A record of tag 32 or more changes the
// session: Decode refuses one it does not know, and bit 4 says that there
// is one, so that a Decode from before such records (which skipped every
// unknown tag) refuses the link too rather than open another session. A
// record of the session holds exactly its fields. Its tags are
//
//	32  llama.cpp's own settings (sampler.Settings' Sequence and
//	    sampler.LlamaParams) of the session's settings and of the changes
//	    that have any: uint n, then n × (uint k: 0 for the session's
//	    settings, k for change k − 1, ascending; sequence string;
//	    mirostat uint; mirostat_tau, mirostat_eta, dry_multiplier,
//	    dry_base numbers; dry_allowed_length, dry_penalty_last_n uints)
//	33  the generation tree (session.Spec.Branches): uint n, 1 to 256,
//	    then n × (from, at, steps uints; forced and edits as above; uint
//	    m, then m × (step uint, settings, then the change's llama.cpp
//	    settings as tag 32 writes them: sequence string, mirostat uint,
//	    four numbers, two uints)), each branch as session.CheckBranches
//	    accepts it, with at most 4096 steps
//	34  the settings that ignore the end of text
//	    (sampler.Settings.IgnoreEOS): uint n, then n × uint k, ascending,
//	    where 0 is the session's settings, 1 to m its changes (k for
//	    change k − 1 of its m), and the numbers after m the branches'
//	    changes, branch after branch in order; Encode writes it only
//	    when some settings ignore the end of text
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
// step, and so on. A token may hold a comma, which
// the query form cannot carry. More rules bound what only a share link
// carries: the fragment is at most MaxFragment characters and its data at
// most MaxDecoded bytes once decompressed, with nothing after the last
// field; every count is checked against the bytes left before anything is
// allocated for it; a forced token or edit has a step in [0, 4096] and, in
// a logits session, a token of the vocabulary; an edited logit is a
// number or −Inf; a change has a step in [1, 4096] after the step of the
// change before it (session.CheckChanges) and settings that pass
// session.CheckSettings, so there are at most 4096 of them. Of the page's
// part it checks the bounds only: a view of at most 32 bytes, a step on
// display from 1 to 4096 (whether the session has it is the page's to
// find out once the session runs), record tags from 1 to 31. Encode and
// Decode errors start with "share link: ".
//
// # Query and fragment together
//
// Merge reads an address's query and fragment, such as
// /?temperature=0.5#s1.…, in which the fragment is the base and the query
// overrides it. Exactly:
//
//   - A fragment that does not start as a share link does — "s", a
//     version number, "." — is an anchor of the page (#intro), and Merge
//     ignores it. One that does start so but does not decode is an error.
//   - Without a share link, Merge reads the query as Parse does, over
//     catalog.Default.
//   - Otherwise it reads the query over the share link's State, with
//     Parse's rules, order and *ParamError: each parameter given replaces
//     its field. A query that names another model than the link's —
//     model=, or logits= without model= — starts that model's session as
//     Parse would, without the link's step on display. The sampler's
//     settings in the query are those of step 0 (Spec.Sampler), as in a
//     session without changes. What the query cannot name — forced tokens,
//     edits, changes of settings — stays the link's. The result must pass
//     Decode's checks, or Merge says "the query does not fit the share
//     link": logits=1,2,3 over six tokens needs vocab= too.
//   - The page's part is the share link's, and the page reads its own
//     parameters (PageParams) over it.
package link

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"nexttoken/engine/catalog"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// Limits on what a link may ask for.
const (
	maxValue  = 64 << 10 // bytes in any value
	MaxPrompt = 4096     // bytes in the prompt; the playground's prompt field takes as many characters
	maxSteps  = 4096
	maxTokens = 1024 // hand-typed logits, as package session allows
	maxQuoted = 40   // bytes of a value quoted in an error message
	maxView   = 32   // bytes in the page's view
)

// param is a query parameter. read parses v into s, which holds the
// parameters read before, and says why it cannot.
type param struct {
	name string
	read func(s *session.Spec, v string) error
}

// params are the parameters in the order Parse reads them: the model's,
// the prompt and steps, the sampler's settings as sampler.Params and
// sampler.LlamaParams give them, then ignore_eos.
var params = slices.Concat([]param{
	{"model", func(s *session.Spec, v string) (err error) {
		s.Model, err = modelName(v)
		return err
	}},
	{"logits", readLogits},
	{"vocab", readVocab},
	{"prompt", readPrompt},
	{"steps", readSteps},
	{"sampler", readSampler},
}, settings(), []param{
	{"ignore_eos", func(s *session.Spec, v string) (err error) {
		s.Sampler.IgnoreEOS, err = ParseBool(v)
		return err
	}},
})

// ParseBool reads a switch as the readable form writes one: 1 is on, 0
// off.
func ParseBool(v string) (bool, error) {
	switch v {
	case "0", "1":
		return v == "1", nil
	}
	return false, fmt.Errorf("%s is not 0 or 1", Quote(v))
}

// settings are the parameters of sampler.Params, then of
// sampler.LlamaParams.
func settings() []param {
	all := slices.Concat(sampler.Params, sampler.LlamaParams)
	ps := make([]param, len(all))
	for i, p := range all {
		ps[i] = param{p.Name, func(s *session.Spec, v string) error {
			x, err := ParseSetting(p, v)
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
	Param  string // the parameter's name, as the package documentation spells it
	Value  string // its value as given (the first, if it was repeated)
	Reason string
}

// Error returns "param: reason".
func (e *ParamError) Error() string { return e.Param + ": " + e.Reason }

// Words says in a sentence for people that the parameter was left out:
// label names it ("top-p"), and instead says what the page has in its
// place ("the top-p is 0 (off)").
func (e *ParamError) Words(label, instead string) string {
	value := "“" + cut(e.Value) + "”"
	if rest, ok := strings.CutPrefix(e.Reason, Quote(e.Value)+" "); ok {
		return fmt.Sprintf("The link's %s, %s, %s, so %s.", label, value, rest, instead)
	}
	was := "was"
	if e.Param == "logits" {
		was = "were"
	}
	return fmt.Sprintf("The link's %s, %s, %s left out (%s), so %s.", label, value, was, e.Reason, instead)
}

// Parse turns a query into a session. Absent parameters keep their values
// in catalog.Default; any problem is a *ParamError.
func Parse(q url.Values) (session.Spec, error) {
	s, err := parse(State{Spec: catalog.Default()}, q)
	return s.Spec, err
}

// parse reads q over base: what q leaves out keeps its value there.
func parse(base State, q url.Values) (State, error) {
	given := known(q)
	s := base
	if m, ok := queryModel(given); ok && m != s.Spec.Model {
		// Another model is another session: token ids, logits and steps
		// mean nothing in it.
		s.Spec, s.Page.At = opening(m, given["logits"] != nil), 0
	}
	for _, p := range params {
		vs := given[p.name]
		if len(vs) == 0 {
			continue
		}
		v, pe := one(p.name, vs)
		if pe != nil {
			return State{}, pe
		}
		fail := func(reason string) (State, error) {
			return State{}, &ParamError{Param: p.name, Value: v, Reason: reason}
		}
		if err := p.read(&s.Spec, v); err != nil {
			return fail(err.Error())
		}
		// Validating after every parameter blames a conflict on the
		// parameter that made it.
		if err := s.Spec.Sampler.Validate(); err != nil {
			return fail(strings.TrimPrefix(err.Error(), "sampler: "))
		}
	}
	fill(&s.Spec.Sampler, func(p string) bool { return given[p] != nil })
	// llama.cpp's and Hugging Face's own rules read the settings together,
	// so they are checked once all are read, and blamed on the mode.
	if err := session.CheckSettings(s.Spec.Sampler); err != nil {
		return State{}, &ParamError{Param: "sampler", Value: s.Spec.Sampler.Mode, Reason: strings.TrimPrefix(err.Error(), "sampler: ")}
	}
	if spec := &s.Spec; spec.Model == session.LogitsModel {
		if spec.Vocab == nil {
			spec.Vocab = indexVocab(len(spec.Logits))
		}
		spec.Prompt = ""
	}
	return s, nil
}

// opening is the session model opens with, as package catalog says, with
// the default sampler: for the logits model, without the worked example's
// vocabulary and logits if the query gives logits of its own.
func opening(model string, ownLogits bool) session.Spec {
	m, ok := catalog.Lookup(model)
	if !ok {
		m = catalog.Model{Name: model} // a model file's Ref (queryModel read it): no prompt of its own
	}
	spec := m.Spec(sampler.DefaultSettings())
	if ownLogits {
		spec.Vocab, spec.Logits = nil, nil
	}
	return spec
}

// fill gives set what Parse gives a query's settings once every
// parameter is read, given says which the query names: sampling at
// temperature 1 where greedy settings have a filter switched on and the
// temperature is not given (greedy decoding ignores every filter, so
// whoever names one wants sampling), and llama.cpp's defaults for the
// settings of a stage switched on (compare.StageDefaults) that are 0 and
// not given.
func fill(set *sampler.Settings, given func(param string) bool) {
	named := func(p sampler.Param) bool { return given(p.Name) && filterOn(p, *set) }
	if set.Temperature == 0 && !given("temperature") && slices.ContainsFunc(sampler.Params, named) {
		set.Temperature = 1
	}
	compare.StageDefaults(set, given)
}

// filterOn reports whether p is a filter that set switches on.
func filterOn(p sampler.Param, set sampler.Settings) bool {
	return p.Filter && !p.IsOff(p.Get(set))
}

// Query writes spec in the readable form, leaving out what the session
// ignores (the prompt of a logits session) and each setting that Parse
// would fill in as it is, absent: a runtime's default after sampler=,
// temperature 1 over a filter, else catalog.Default's. It writes the
// prompt of any other model, even its own default: a reader of the link
// sees the prompt it opens with.
// Parse of the query gives spec back, unless spec is one Parse would
// reject, such as one with a comma in a vocabulary token. lossy reports
// that spec has
// forced tokens, edited logits, changes of settings or branches, which the
// readable form cannot carry: ignore_eos=1 is step 0's, and a change that
// switches it is a change like any other. url.Values.Encode escapes the commas of logits and
// vocab as %2C, which Parse reads the same.
func Query(spec session.Spec) (q url.Values, lossy bool) {
	q = url.Values{}
	put := func(name, value string, isDefault bool) {
		if !isDefault {
			q.Set(name, value)
		}
	}
	d := catalog.Default()
	logits := spec.Model == session.LogitsModel
	put("model", spec.Model, spec.Model == d.Model)
	put("prompt", spec.Prompt, logits || spec.Model == d.Model && spec.Prompt == d.Prompt)
	put("steps", strconv.Itoa(spec.Steps), spec.Steps == d.Steps)
	set, ds := spec.Sampler, d.Sampler
	chain := cmp.Or(set.Sequence, set.Mode)
	named := set.Mode != "" && set.Mode != ds.Mode
	put("sampler", chain, !named)
	for _, p := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		v := p.Get(set)
		text := format(v)
		if p.Integer {
			text = strconv.FormatFloat(v, 'f', -1, 64) // never 1e+06, which ParseSetting rejects
		}
		// Left out, Parse would read what it fills in: the runtime's
		// default after sampler=, a stage's default, temperature 1 over
		// a filter, else catalog.Default's.
		others := func(name string) bool { return name != p.Name }
		absent := set
		p.Set(&absent, p.Get(ds))
		if named {
			var err error
			if absent, err = compare.ChainSettings(chain, absent, others); err != nil {
				absent = set
				p.Set(&absent, math.NaN()) // a State Parse rejects: write every setting
			}
		}
		fill(&absent, others)
		put(p.Name, text, p.Get(absent) == v)
	}
	if logits {
		l := make([]string, len(spec.Logits))
		for i, x := range spec.Logits {
			l[i] = format(x)
		}
		q.Set("logits", strings.Join(l, ","))
		put("vocab", strings.Join(spec.Vocab, ","), slices.Equal(spec.Vocab, indexVocab(len(spec.Logits))))
	}
	put("ignore_eos", "1", !spec.Sampler.IgnoreEOS)
	return q, len(spec.Forced) > 0 || len(spec.Edits) > 0 || len(spec.Changes) > 0 || len(spec.Branches) > 0
}

// known gathers the values of q's parameters that Parse reads, by their
// names as the package documentation spells them, whatever their case.
func known(q url.Values) map[string][]string { return gather(q, paramNamed) }

// gather gathers the values of q's parameters that named spells, by that
// spelling. Names are taken in sorted order, so that the first of a
// repeated parameter's values does not depend on map order.
func gather(q url.Values, named func(string) (string, bool)) map[string][]string {
	given := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if p, ok := named(name); ok {
			given[p] = append(given[p], q[name]...)
		}
	}
	return given
}

// one returns the value of parameter name, given as vs, or says why it
// cannot be read: it is given more than once, or longer than any value
// may be.
func one(name string, vs []string) (string, *ParamError) {
	v := vs[0]
	switch {
	case len(vs) > 1:
		return "", &ParamError{Param: name, Value: v, Reason: "given more than once"}
	case len(v) > maxValue:
		return "", &ParamError{Param: name, Value: v, Reason: fmt.Sprintf("%d bytes, more than %d", len(v), maxValue)}
	}
	return v, nil
}

// PageParams reads the page's own parameters from a raw query, those
// called names (in any case), which Parse, Merge and Open leave alone.
// It reads each as it reads the session's: given once, at most 64 KiB,
// its escapes valid (ParseQuery). values holds each that reads, as given,
// by its name in names, for the page to say what it means; bad holds a
// *ParamError for each of the others, those with a bad escape first.
func PageParams(rawQuery string, names ...string) (values map[string]string, bad []*ParamError) {
	named := func(name string) (string, bool) {
		i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
		if i < 0 {
			return "", false
		}
		return names[i], true
	}
	q, bad := parseQuery(rawQuery, named)
	given := gather(q, named)
	values = map[string]string{}
	for _, name := range names {
		if vs := given[name]; len(vs) > 0 {
			v, pe := one(name, vs)
			if pe != nil {
				bad = append(bad, pe)
				continue
			}
			values[name] = v
		}
	}
	return values, bad
}

// queryModel returns the model a query names, as Parse reads it: model=,
// or logits= without it.
func queryModel(given map[string][]string) (string, bool) {
	switch {
	case len(given["model"]) > 0:
		m, err := modelName(given["model"][0])
		return m, err == nil // Parse reports a bad name
	case len(given["logits"]) > 0:
		return session.LogitsModel, true
	}
	return "", false
}

// ParseQuery parses a raw query, the part of an address after "?", as
// url.ParseQuery does — pairs split at "&", "+" a space, %XX a byte —
// with two differences. A ";" is an ordinary character, where
// url.ParseQuery stops with an error. And a "%" that starts no escape
// makes the first parameter Parse reads that holds one a *ParamError
// naming it ("prompt=100%" means 100%25); in another parameter, which
// Parse ignores, it is ignored too. The values hold every pair that
// decodes, even with an error.
func ParseQuery(raw string) (url.Values, error) {
	q, bad := parseQuery(raw, paramNamed)
	if len(bad) > 0 {
		return q, bad[0]
	}
	return q, nil
}

// parseQuery is ParseQuery with a *ParamError for every parameter that
// named spells whose value has a % that starts no escape, in the query's
// order.
func parseQuery(raw string, named func(string) (string, bool)) (url.Values, []*ParamError) {
	q := url.Values{}
	var bad []*ParamError
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			continue // no parameter has such a name
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			if p, ok := named(name); ok {
				bad = append(bad, &ParamError{Param: p, Value: v,
					Reason: Quote(v) + " has a % that starts no escape (a percent sign is %25)"})
			}
			continue
		}
		q[name] = append(q[name], value)
	}
	return q, bad
}

// paramNamed returns the spelling of the parameter called name in any case.
func paramNamed(name string) (string, bool) {
	i := slices.IndexFunc(params, func(p param) bool { return strings.EqualFold(p.name, name) })
	if i < 0 {
		return "", false
	}
	return params[i].name, true
}

// readSampler reads the chain the session samples with: a mode, or one of
// llama.cpp's chains as compare.SetChain reads it (mirostat, mirostat2,
// letters such as edkt), with its settings as compare.ChainSettings gives
// them.
func readSampler(s *session.Spec, v string) error {
	// The settings given come after and replace their defaults, which
	// is compare.ChainSettings with them given.
	set, err := compare.ChainSettings(v, s.Sampler, nil)
	if err != nil {
		return fmt.Errorf("%s is none of %s, nor llama.cpp letters such as edkt", Quote(v), strings.Join(compare.Names, ", "))
	}
	s.Sampler = set
	return nil
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
			return fmt.Errorf("token %d: %s is neither a finite number nor -inf", i, Quote(e))
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
	case len(v) > MaxPrompt:
		return fmt.Errorf("%d bytes, more than %d", len(v), MaxPrompt)
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

// ParseSetting parses v as a value of p: a decimal whole number for an
// integer setting, or a number as strconv.ParseFloat reads it, in p's
// range. It is the grammar of a sampler setting wherever it is typed: a
// link's parameter and the command line's flag.
func ParseSetting(p sampler.Param, v string) (float64, error) {
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
		return 0, fmt.Errorf("%s is not %s", Quote(v), p.Range())
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

// modelName returns the catalog's spelling of the model v names, or the
// reference of a model opened from files (package modelfile).
func modelName(v string) (string, error) {
	if m, ok := catalog.Lookup(v); ok {
		return m.Name, nil
	}
	if modelfile.IsRef(v) {
		r, err := modelfile.ParseRef(v)
		return r.String(), err
	}
	return "", fmt.Errorf("%s is not one of %s", Quote(v), strings.Join(catalog.Names(), ", "))
}

// oneOf returns the name among names that v spells, ignoring case.
func oneOf(v string, names []string) (string, error) {
	for _, n := range names {
		if strings.EqualFold(v, n) {
			return n, nil
		}
	}
	return "", fmt.Errorf("%s is not one of %s", Quote(v), strings.Join(names, ", "))
}

// whole parses v as a whole number in [0, most].
func whole(v string, most int) (int, error) {
	n, err := ParseWhole(v)
	if err == nil && (n < 0 || n > most) {
		err = outside(v, most)
	}
	return n, err
}

// ParseWhole parses v as a whole number in decimal, as a link's step count
// is written and as the command line's counts are: a sign and digits, no
// base prefix, separator or exponent.
func ParseWhole(v string) (int, error) {
	n, err := strconv.Atoi(v)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is out of range", Quote(v))
	case err != nil:
		return 0, fmt.Errorf("%s is not a whole number", Quote(v))
	}
	return n, nil
}

func outside(v string, most int) error {
	return fmt.Errorf("%s is outside [0, %d]", Quote(v), most)
}

// Quote quotes a parameter's value for a message, cut short (short) so
// that a hostile value cannot make the message huge. A ParamError's
// Reason that is about the value as given starts with it and a space.
func Quote(v string) string {
	if s := short(v); s != v {
		return strconv.Quote(strings.TrimSuffix(s, "…")) + "…"
	}
	return strconv.Quote(v)
}

// short is v cut at a rune boundary after at most maxQuoted bytes, with
// "…" where it was cut.
func short(v string) string {
	if len(v) <= maxQuoted {
		return v
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
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
