package link

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/catalog"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// State is what an address carries: the session, and what the page that
// shows it keeps beside it.
type State struct {
	Spec session.Spec
	Page Page
}

// Page is the page's part of a link, which link carries without reading
// it: it knows where each part goes in a share link and checks the bounds
// the format sets, and the page says what the parts mean (the
// playground's views and records are package play's). Its zero value is a
// page with nothing to say.
type Page struct {
	// View names the page's open view: at most 32 bytes; "" is the
	// page's choice.
	View string

	// At is the step on display, numbered from 1 as the page labels it
	// ("Step N"), at most 4096, the most steps a link's session has; 0,
	// the default, is the next step. Whether the session has step At is
	// the page's to find out once it runs: a session may end before
	// Spec.Steps.
	At int

	// Records are the page's records of the extras section, by ascending
	// tags from 1 to 31, each once; a share link carries them as they
	// are, whatever they hold, and the tags the page does not know too.
	Records []Record
}

// Record is one of the page's records in a share link's extras section:
// a tag from 1 to 31, and the record's bytes, whose meaning is the page's.
type Record struct {
	Tag  int
	Body string
}

// Limits on share links.
const (
	MaxFragment = 16 << 10 // characters in a fragment
	MaxDecoded  = 64 << 10 // bytes of data once decompressed
)

const (
	prefix = "s1." // format s, version 1

	// The flags: what the data holds beyond the fields every link has.
	deflated   = 1 << 0 // the data is compressed
	hasChanges = 1 << 1 // a section of changes of settings follows the edits
	hasAt      = 1 << 2 // the step on display follows
	hasExtras  = 1 << 3 // a section of tagged records follows, last
	// changesSession says that the extras hold a record that changes the
	// session, so that a reader from before such records refuses the
	// link rather than skip the record and open another session.
	changesSession = 1 << 4
	knownFlags     = deflated | hasChanges | hasAt | hasExtras | changesSession

	// compressAbove is the size below which Encode does not try DEFLATE:
	// on short data its headers cost what it saves (none of the typical
	// sessions of TestShareLength compress), and a flate writer allocates
	// about 800 KB, which in the browser means a garbage collection pause
	// in the middle of an interaction.
	compressAbove = 256
)

// Encode writes s as a fragment, without the '#'. It first puts s in the
// form Decode returns (Canonical, and nil for no page records). Then s
// must pass Decode's checks, so that every fragment Encode writes opens
// and Decode gives s back.
func Encode(s State) (string, error) {
	s.Spec = Canonical(s.Spec)
	s.Page.Records = nilIfEmpty(s.Page.Records)
	if err := check(&s); err != nil {
		return "", fmt.Errorf("share link: %w", err)
	}
	var w writer
	flags := w.state(s)
	if len(w) > MaxDecoded {
		return "", fmt.Errorf("share link: %d bytes of data, more than %d", len(w), MaxDecoded)
	}
	data := append([]byte{flags}, w...)
	if len(w) > compressAbove {
		if z := deflate(w); len(z) < len(w) {
			data = append([]byte{flags | deflated}, z...)
		}
	}
	f := prefix + base64.RawURLEncoding.EncodeToString(data)
	if len(f) > MaxFragment {
		return "", fmt.Errorf("share link: %d characters, more than %d", len(f), MaxFragment)
	}
	return f, nil
}

// Canonical is spec in the form Decode returns: an empty Mode spelled
// chain, no prompt in a logits session and the vocabulary 0, 1, 2, … when
// it has none, nil for empty slices. Two specs of one session are equal
// in this form (reflect.DeepEqual). spec's own slices are left as they
// are.
func Canonical(spec session.Spec) session.Spec {
	spec.Sampler.Mode = chainIfEmpty(spec.Sampler.Mode)
	spec.Changes = canonicalChanges(spec.Changes)
	if spec.Model == session.LogitsModel {
		spec.Prompt = ""
		if spec.Vocab == nil {
			spec.Vocab = indexVocab(len(spec.Logits))
		}
	}
	spec.Vocab, spec.Logits = nilIfEmpty(spec.Vocab), nilIfEmpty(spec.Logits)
	spec.Forced, spec.Edits = nilIfEmpty(spec.Forced), nilIfEmpty(spec.Edits)
	if c := spec.Chat; c != nil {
		spec.Chat = &session.Chat{Messages: nilIfEmpty(slices.Clone(c.Messages)), GenerationPrompt: c.GenerationPrompt}
	}
	spec.Branches = nilIfEmpty(slices.Clone(spec.Branches))
	for i := range spec.Branches {
		b := &spec.Branches[i]
		b.Forced, b.Edits = nilIfEmpty(b.Forced), nilIfEmpty(b.Edits)
		b.Changes = canonicalChanges(b.Changes)
	}
	return spec
}

// canonicalChanges are changes with every mode spelled, in memory of
// their own; nil for none.
func canonicalChanges(changes []session.Change) []session.Change {
	changes = nilIfEmpty(slices.Clone(changes))
	for i := range changes {
		c := &changes[i].Sampler
		c.Mode = chainIfEmpty(c.Mode)
	}
	return changes
}

// chainIfEmpty spells the default mode, "", as Decode returns it.
func chainIfEmpty(mode sampler.Mode) sampler.Mode {
	if mode == "" {
		return sampler.Chain
	}
	return mode
}

func nilIfEmpty[E any](s []E) []E {
	if len(s) == 0 {
		return nil
	}
	return s
}

// errNewer is the end of the errors of a share link that only a newer
// nexttoken may have written: another format, a flag or a record that
// changes the session unknown here.
var errNewer = errors.New("was the link made by a newer nexttoken?")

// Decode reads a fragment that Encode wrote. Its work and memory are
// bounded by MaxFragment and MaxDecoded whatever the fragment holds, and
// it does not load models: the session checks what needs one when it
// runs.
func Decode(fragment string) (State, error) {
	s, err := decode(fragment)
	if err != nil {
		return State{}, fmt.Errorf("share link: %w", err)
	}
	return s, nil
}

func decode(fragment string) (State, error) {
	if len(fragment) > MaxFragment {
		return State{}, fmt.Errorf("%d characters, more than %d", len(fragment), MaxFragment)
	}
	text, err := version(fragment)
	if err != nil {
		return State{}, err
	}
	data, err := base64.RawURLEncoding.DecodeString(text)
	switch {
	case err != nil:
		return State{}, fmt.Errorf("not base64url: %v", err)
	case len(data) == 0:
		return State{}, errors.New("no data")
	}
	flags, data := data[0], data[1:]
	if flags&^knownFlags != 0 {
		return State{}, fmt.Errorf("unknown flags %#x (%w)", flags, errNewer)
	}
	if flags&deflated != 0 {
		if data, err = inflate(data); err != nil {
			return State{}, err
		}
	}
	r := reader{b: data}
	s := r.state(flags)
	if r.err != nil {
		return State{}, r.err
	}
	return s, check(&s)
}

// version returns what follows the fragment's prefix, or says why there
// is none.
func version(fragment string) (string, error) {
	if text, ok := strings.CutPrefix(fragment, prefix); ok {
		return text, nil
	}
	if format, ok := shareLike(fragment); ok {
		return "", fmt.Errorf("format %s, but this nexttoken reads only %s (%w)",
			Quote(format), strings.TrimSuffix(prefix, "."), errNewer)
	}
	return "", fmt.Errorf("%s does not start with %q", Quote(fragment), prefix)
}

// shareLike reports whether fragment starts as every version of the share
// link does, "s", a number and ".", and returns that format, "s1"; any
// other fragment is an anchor of the page.
func shareLike(fragment string) (format string, ok bool) {
	format, _, dot := strings.Cut(fragment, ".")
	n, s := strings.CutPrefix(format, "s")
	return format, s && dot && n != "" && strings.Trim(n, "0123456789") == ""
}

// check applies the query form's rules to s where they apply, and the rules
// of what only a share link carries; it spells the model and mode as Parse
// does.
func check(s *State) error {
	spec := &s.Spec
	var err error
	if spec.Model, err = modelName(spec.Model); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	vocab := 0 // tokens a forced token or edit may name, when the link knows
	if spec.Model == session.LogitsModel {
		switch n := len(spec.Logits); {
		case n == 0:
			return errors.New("logits: model=logits needs logits")
		case n > maxTokens:
			return fmt.Errorf("logits: %d entries, more than %d", n, maxTokens)
		case len(spec.Vocab) != n:
			return fmt.Errorf("vocab: %d tokens for %d logits", len(spec.Vocab), n)
		}
		for i, x := range spec.Logits {
			if !isLogit(x) {
				return fmt.Errorf("logits: token %d: %v is neither a finite number nor -inf", i, x)
			}
		}
		if err := checkMasked(spec.Logits); err != nil {
			return fmt.Errorf("logits: %w", err)
		}
		if err := checkVocab(spec.Vocab); err != nil {
			return fmt.Errorf("vocab: %w", err)
		}
		vocab = len(spec.Vocab)
	} else if spec.Logits != nil {
		return fmt.Errorf("logits: %w", logitsOnly(spec))
	} else if spec.Vocab != nil {
		return fmt.Errorf("vocab: %w", logitsOnly(spec))
	}
	if spec.Prompt != "" {
		if err := checkPrompt(spec.Model, spec.Prompt); err != nil {
			return fmt.Errorf("prompt: %w", err)
		}
	}
	if err := CheckChat(spec); err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	if most := stepLimit(spec.Model); spec.Steps < 0 || spec.Steps > most {
		return fmt.Errorf("steps: %w", outside(strconv.Itoa(spec.Steps), most))
	}
	if spec.Sampler.Mode, err = oneOf(spec.Sampler.Mode, sampler.Modes); err != nil {
		return fmt.Errorf("sampler: %w", err)
	}
	if err := session.CheckSettings(spec.Sampler); err != nil {
		return err
	}
	for i, c := range spec.Changes {
		if c.Step > MaxSteps {
			return fmt.Errorf("change %d: step %d is outside [1, %d]", i, c.Step, MaxSteps)
		}
		if spec.Changes[i].Sampler.Mode, err = oneOf(c.Sampler.Mode, sampler.Modes); err != nil {
			return fmt.Errorf("change %d: sampler: %w", i, err)
		}
	}
	if err := session.CheckChanges(spec.Changes); err != nil {
		return err
	}
	if err := checkHandEdits(spec.Forced, spec.Edits, vocab); err != nil {
		return err
	}
	if err := checkTree(spec, vocab); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	return checkPage(s.Page)
}

// checkPage applies the bounds a share link sets on the page's part.
func checkPage(p Page) error {
	if len(p.View) > maxView {
		return fmt.Errorf("view: %d bytes, more than %d", len(p.View), maxView)
	}
	if p.At < 0 || p.At > MaxSteps {
		return fmt.Errorf("at: step %d is outside [1, %d]", p.At, MaxSteps)
	}
	last := 0
	for i, r := range p.Records {
		if r.Tag <= last || r.Tag >= sessionTags {
			return fmt.Errorf("page record %d: tag %d is not above %d and below %d", i, r.Tag, last, sessionTags)
		}
		last = r.Tag
	}
	return nil
}

// checkHandEdits checks forced tokens and edits; vocab is the
// vocabulary's size, or 0 when only the model knows it.
func checkHandEdits(forced []session.Force, edits []session.Edit, vocab int) error {
	for i, f := range forced {
		if err := checkPlace(f.Step, f.Token, vocab); err != nil {
			return fmt.Errorf("forced token %d: %w", i, err)
		}
	}
	for i, e := range edits {
		if err := checkPlace(e.Step, e.Token, vocab); err != nil {
			return fmt.Errorf("edit %d: %w", i, err)
		}
		if !isLogit(e.Logit) {
			return fmt.Errorf("edit %d: logit %v is neither a finite number nor -inf", i, e.Logit)
		}
	}
	return nil
}

// checkTree checks the branches of spec's generation tree: the session's
// rules (session.CheckBranches), steps as the session's own have them,
// and their settings spelled as Parse spells them.
func checkTree(spec *session.Spec, vocab int) error {
	for i := range spec.Branches {
		b := &spec.Branches[i]
		if most := stepLimit(spec.Model); b.Steps > most {
			return fmt.Errorf("branch %d: steps: %w", i+1, outside(strconv.Itoa(b.Steps), most))
		}
		if err := checkHandEdits(b.Forced, b.Edits, vocab); err != nil {
			return fmt.Errorf("branch %d: %w", i+1, err)
		}
		for k, c := range b.Changes {
			var err error
			if b.Changes[k].Sampler.Mode, err = oneOf(c.Sampler.Mode, sampler.Modes); err != nil {
				return fmt.Errorf("branch %d: change %d: sampler: %w", i+1, k, err)
			}
		}
	}
	return session.CheckBranches(spec.Steps, spec.Branches)
}

// checkPlace checks the step and token of a forced token or an edit; vocab
// is the vocabulary's size, or 0 when only the model knows it.
func checkPlace(step, token, vocab int) error {
	switch {
	case step < 0 || step > MaxSteps:
		return fmt.Errorf("step %d is outside [0, %d]", step, MaxSteps)
	case token < 0:
		return fmt.Errorf("token %d is negative", token)
	case vocab > 0 && token >= vocab:
		return fmt.Errorf("token %d is outside the vocabulary of %d", token, vocab)
	}
	return nil
}

// Merge reads a playground address: its query in the readable form and
// its fragment (without the '#'), either of which may be empty. The
// package documentation says how the two combine.
func Merge(query url.Values, fragment string) (State, error) {
	if _, ok := shareLike(fragment); !ok {
		return parse(State{Spec: catalog.Default()}, query)
	}
	s, err := Decode(fragment)
	if err != nil {
		return State{}, err
	}
	if s, err = parse(s, query); err != nil {
		return State{}, err
	}
	if err := check(&s); err != nil {
		return State{}, fmt.Errorf("the query does not fit the share link: %w", err)
	}
	return s, nil
}
