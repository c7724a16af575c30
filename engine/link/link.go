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
	MaxSteps  = 4096     // steps a session of a real model may ask for; hand-typed logits give one
	maxTokens = 1024     // hand-typed logits, as package session allows
	maxQuoted = 40       // bytes of a value quoted in an error message
	maxView   = 32       // bytes in the page's view
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
	{"chat", readChat},
	{"generation_prompt", readGenerationPrompt},
	{"steps", readSteps},
	{"sampler", readSampler},
}, settings(), []param{
	{"ignore_eos", func(s *session.Spec, v string) (err error) {
		s.Sampler.IgnoreEOS, err = ParseBool(v)
		return err
	}},
})

// reason is what a sampler's error says in words: a *sampler.SettingError's
// Reason, without the package's prefix.
func reason(err error) string {
	var se *sampler.SettingError
	if errors.As(err, &se) {
		return se.Reason
	}
	return err.Error()
}

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

// Fault says in a sentence for people what is wrong with the parameter,
// label naming it, for a page that shows nothing in its place.
func (e *ParamError) Fault(label string) string {
	value := "“" + cut(e.Value) + "”"
	if rest, ok := strings.CutPrefix(e.Reason, Quote(e.Value)+" "); ok {
		return fmt.Sprintf("The link's %s, %s, %s.", label, value, rest)
	}
	return fmt.Sprintf("The link's %s, %s, cannot be used (%s).", label, value, e.Reason)
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
			return fail(reason(err))
		}
	}
	if given["prompt"] != nil && given["chat"] != nil {
		v, _ := one("chat", given["chat"])
		return State{}, &ParamError{Param: "chat", Value: v, Reason: "goes without prompt=: a session has a prompt or a chat"}
	}
	fill(&s.Spec.Sampler, func(p string) bool { return given[p] != nil })
	// llama.cpp's and Hugging Face's own rules read the settings together,
	// so they are checked once all are read, and blamed on the mode.
	if err := session.CheckSettings(s.Spec.Sampler); err != nil {
		return State{}, &ParamError{Param: "sampler", Value: string(s.Spec.Sampler.Mode), Reason: reason(err)}
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
	put("prompt", spec.Prompt, logits || spec.Chat != nil || spec.Model == d.Model && spec.Prompt == d.Prompt)
	if spec.Chat != nil {
		q.Set("chat", chatQuery(spec.Chat))
		put("generation_prompt", "0", spec.Chat.GenerationPrompt)
	}
	put("steps", strconv.Itoa(spec.Steps), spec.Steps == d.Steps)
	set, ds := spec.Sampler, d.Sampler
	chain := cmp.Or(set.Sequence, string(set.Mode))
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
	if err := checkPrompt(s.Model, v); err != nil {
		return err
	}
	s.Prompt, s.Chat = v, nil
	return nil
}

// checkPrompt says what is wrong with prompt v of a session on model.
func checkPrompt(model, v string) error {
	switch {
	case model == session.LogitsModel:
		return errors.New("model=logits has no prompt")
	case len(v) > MaxPrompt:
		return fmt.Errorf("%d bytes, more than %d", len(v), MaxPrompt)
	case !utf8.ValidString(v):
		return errors.New("not valid UTF-8")
	}
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
func oneOf[S ~string](v S, names []S) (S, error) {
	words := make([]string, len(names))
	for i, n := range names {
		if strings.EqualFold(string(v), string(n)) {
			return n, nil
		}
		words[i] = string(n)
	}
	return "", fmt.Errorf("%s is not one of %s", Quote(string(v)), strings.Join(words, ", "))
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
