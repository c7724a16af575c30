package link

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// The share link's data, field by field, as the package documentation
// lays it out.

// writer appends fields to the data.
type writer []byte

func (w *writer) uint(x uint64) { *w = binary.AppendUvarint(*w, x) }

func (w *writer) int(x int) { w.uint(uint64(x)) } // x ≥ 0: check has seen to it

func (w *writer) string(s string) {
	w.int(len(s))
	*w = append(*w, s...)
}

// float writes x as ±d×10^e with the fewest digits d that read back as x:
// −2.1 is two bytes, where its float64 bits would be eight. ±Inf is written
// as ±1e999, which overflows back to it.
func (w *writer) float(x float64) {
	var sign uint64
	if math.Signbit(x) {
		sign = 1
	}
	d, e := uint64(1), int64(999)
	if !math.IsInf(x, 0) {
		mant, exp, _ := strings.Cut(strconv.FormatFloat(math.Abs(x), 'e', -1, 64), "e")
		digits := strings.Replace(mant, ".", "", 1)
		d, _ = strconv.ParseUint(digits, 10, 64) // at most 17 digits
		n, _ := strconv.Atoi(exp)
		e = int64(n - (len(digits) - 1))
	}
	w.uint(d<<1 | sign)
	*w = binary.AppendVarint(*w, e)
}

// settings writes the sampler's settings.
func (w *writer) settings(set sampler.Settings) {
	w.string(string(set.Mode))
	w.float(set.Temperature)
	w.int(set.TopK)
	w.float(set.TopP)
	w.float(set.MinP)
	w.float(set.RepetitionPenalty)
	w.uint(set.Seed)
}

// state writes s, which check has accepted, and returns the flags that
// say which optional sections it wrote.
func (w *writer) state(s State) (flags byte) {
	spec := s.Spec
	w.string(spec.Model)
	w.string(spec.Prompt)
	w.string(s.Page.View)
	w.int(spec.Steps)
	w.settings(spec.Sampler)
	w.int(len(spec.Vocab))
	for _, v := range spec.Vocab {
		w.string(v)
	}
	for _, l := range spec.Logits {
		w.float(l)
	}
	w.forced(spec.Forced)
	w.edits(spec.Edits)
	if len(spec.Changes) > 0 {
		flags |= hasChanges
		w.int(len(spec.Changes))
		for _, c := range spec.Changes {
			w.int(c.Step)
			w.settings(c.Sampler)
		}
	}
	if s.Page.At > 0 {
		flags |= hasAt
		w.int(s.Page.At)
	}
	// The records, by ascending tag, the page's first; a State without
	// them writes no section, so its link is the one it always was.
	var records []record
	for _, r := range s.Page.Records {
		records = append(records, record{uint64(r.Tag), writer(r.Body)})
	}
	if body, ok := llamaRecord(spec); ok {
		records = append(records, record{tagLlama, body})
		flags |= changesSession
	}
	if len(spec.Branches) > 0 {
		records = append(records, record{tagTree, treeRecord(spec.Branches)})
		flags |= changesSession
	}
	if body, ok := ignoreEOSRecord(spec); ok {
		records = append(records, record{tagIgnoreEOS, body})
		flags |= changesSession
	}
	if body, ok := chatRecord(spec); ok {
		records = append(records, record{tagChat, body})
		flags |= changesSession
	}
	if len(records) > 0 {
		flags |= hasExtras
		w.int(len(records))
		for _, r := range records {
			w.uint(r.tag)
			w.string(string(r.body))
		}
	}
	return flags
}

// record is an entry of the extras section: a tag, then the record's own
// fields as a string, so that a reader that does not know the tag can skip
// it. The extras carry what the page shows, which a page that does not
// know a record can do without; what changes the session needs a flag,
// which such a page refuses.
type record struct {
	tag  uint64
	body writer
}

// The tags of the records. Those below sessionTags are the page's
// (Page.Records), which link carries without reading them; those from
// sessionTags on change the session, and a reader refuses one it does not
// know.
const (
	sessionTags  = 32 // the first tag of a record that changes the session
	tagLlama     = 32 // llama.cpp's own settings of step 0 and of the changes: see llamaRecord
	tagTree      = 33 // the generation tree, Spec.Branches: see treeRecord
	tagIgnoreEOS = 34 // the settings that ignore the end of text: see ignoreEOSRecord
	tagChat      = 35 // the chat whose rendering is the prompt, Spec.Chat: see chatRecord

	// maxRecords bounds the section: far more tags than will ever be
	// defined, and far fewer than the data could claim.
	maxRecords = 64
)

// llamaRecord writes the settings only llama.cpp mode has (Sequence and
// sampler.LlamaParams) of the session's settings and of each change that
// has any: uint n, then n × (uint k: 0 for Spec.Sampler, k for change
// k − 1, ascending; sequence string; mirostat uint; mirostat_tau,
// mirostat_eta, dry_multiplier, dry_base numbers; dry_allowed_length,
// dry_penalty_last_n uints). ok is false when no settings have any.
func llamaRecord(spec session.Spec) (body writer, ok bool) {
	all := []sampler.Settings{spec.Sampler}
	for _, c := range spec.Changes {
		all = append(all, c.Sampler)
	}
	var entries writer
	n := 0
	for k, set := range all {
		if !hasLlamaOwn(set) {
			continue
		}
		n++
		entries.int(k)
		entries.llamaOwn(set)
	}
	if n == 0 {
		return nil, false
	}
	body.int(n)
	return append(body, entries...), true
}

// treeRecord writes the branches of the generation tree: uint n, then n ×
// (from, at, steps uints; forced, edits as the session's own; changes:
// uint m, then m × (step uint, settings, llama.cpp's own settings as
// llamaRecord writes them)).
func treeRecord(branches []session.Branch) (body writer) {
	body.int(len(branches))
	for _, b := range branches {
		body.int(b.From)
		body.int(b.At)
		body.int(b.Steps)
		body.forced(b.Forced)
		body.edits(b.Edits)
		body.int(len(b.Changes))
		for _, c := range b.Changes {
			body.int(c.Step)
			body.settings(c.Sampler)
			body.llamaOwn(c.Sampler)
		}
	}
	return body
}

// ignoreEOSRecord writes which of the session's settings ignore the end of
// text (sampler.Settings.IgnoreEOS): uint n, then n × uint k, ascending,
// each the number of the settings in allSettings' order. ok is false
// when none do.
func ignoreEOSRecord(spec session.Spec) (body writer, ok bool) {
	var entries writer
	n := 0
	for k, set := range allSettings(&spec) {
		if set.IgnoreEOS {
			n++
			entries.int(k)
		}
	}
	if n == 0 {
		return nil, false
	}
	body.int(n)
	return append(body, entries...), true
}

// allSettings are every settings of spec, as tag 34 numbers them: the
// session's, then its changes', then each branch's changes', in order.
func allSettings(spec *session.Spec) []*sampler.Settings {
	all := []*sampler.Settings{&spec.Sampler}
	for i := range spec.Changes {
		all = append(all, &spec.Changes[i].Sampler)
	}
	for _, b := range spec.Branches {
		for i := range b.Changes {
			all = append(all, &b.Changes[i].Sampler)
		}
	}
	return all
}

// forced writes forced tokens: uint n, then n × (step, token uints).
func (w *writer) forced(forced []session.Force) {
	w.int(len(forced))
	for _, f := range forced {
		w.int(f.Step)
		w.int(f.Token)
	}
}

// edits writes edited logits: uint n, then n × (step, token uints, logit
// number).
func (w *writer) edits(edits []session.Edit) {
	w.int(len(edits))
	for _, e := range edits {
		w.int(e.Step)
		w.int(e.Token)
		w.float(e.Logit)
	}
}

// llamaOwn writes the settings only llama.cpp mode has.
func (w *writer) llamaOwn(set sampler.Settings) {
	w.string(set.Sequence)
	w.int(set.Mirostat)
	w.float(set.MirostatTau)
	w.float(set.MirostatEta)
	w.float(set.DryMultiplier)
	w.float(set.DryBase)
	w.int(set.DryAllowedLength)
	w.int(set.DryPenaltyLastN)
}

// hasLlamaOwn reports whether set has any setting only llama.cpp has.
func hasLlamaOwn(set sampler.Settings) bool {
	return set.Sequence != "" || slices.ContainsFunc(sampler.LlamaParams, func(p sampler.Param) bool { return p.Get(set) != 0 })
}

// reader takes fields from the data. The first problem sticks: later reads
// return zero values and take nothing, so that decoding runs straight
// through and reports that one problem.
type reader struct {
	b   []byte // what is left
	err error
}

func (r *reader) fail(field, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(field+": "+format, args...)
	}
}

func (r *reader) uint(field string) uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b)
	switch {
	case n == 0:
		r.fail(field, "the data ends early")
	case n < 0:
		r.fail(field, "a number wider than 64 bits")
	default:
		r.b = r.b[n:]
	}
	return x
}

func (r *reader) int(field string) int {
	x := r.uint(field)
	if x > math.MaxInt {
		r.fail(field, "%d is too large", x)
		return 0
	}
	return int(x)
}

func (r *reader) string(field string) string {
	n := r.int(field)
	if n > len(r.b) {
		r.fail(field, "%d bytes, but only %d remain", n, len(r.b))
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// float reads what writer.float writes: the float64 nearest ±d×10^e, which
// is ±Inf beyond the float64 range.
func (r *reader) float(field string) float64 {
	ds := r.uint(field)
	ze := r.uint(field)
	if r.err != nil {
		return 0
	}
	e := int64(ze>>1) ^ -int64(ze&1) // zig-zag, as binary.Varint
	// Well formed by construction; out of range means ±Inf, as documented.
	x, _ := strconv.ParseFloat(strconv.FormatUint(ds>>1, 10)+"e"+strconv.FormatInt(e, 10), 64)
	if ds&1 == 1 {
		x = -x
	}
	return x
}

// count reads how many entries of at least size bytes follow, at most most,
// and checks that they fit in what is left before anything is allocated
// for them.
func (r *reader) count(field string, size, most int) int {
	n := r.int(field)
	switch {
	case n > most:
		r.fail(field, "%d entries, more than %d", n, most)
	case n > len(r.b)/size:
		r.fail(field, "%d entries cannot fit in the %d bytes that remain", n, len(r.b))
	default:
		return n
	}
	return 0
}

// settings reads what writer.settings writes; in names the section for
// errors, or is "" for the session's own settings, whose fields are named.
func (r *reader) settings(in string) sampler.Settings {
	field := func(name string) string {
		if in != "" {
			return in
		}
		return name
	}
	return sampler.Settings{
		Mode:              sampler.Mode(r.string(field("sampler"))),
		Temperature:       r.float(field("temperature")),
		TopK:              r.int(field("top_k")),
		TopP:              r.float(field("top_p")),
		MinP:              r.float(field("min_p")),
		RepetitionPenalty: r.float(field("repetition_penalty")),
		Seed:              r.uint(field("seed")),
	}
}

// minSettings is the fewest bytes settings take: a byte for the mode's
// length and for each uint, two for each number.
const minSettings = 1 + 2 + 1 + 2 + 2 + 2 + 1

// state reads the fields that writer.state writes, with the optional
// sections flags names, and nothing after them.
func (r *reader) state(flags byte) State {
	var s State
	spec := &s.Spec
	spec.Model = r.string("model")
	spec.Prompt = r.string("prompt")
	s.Page.View = r.string("view")
	spec.Steps = r.int("steps")
	spec.Sampler = r.settings("")
	// A token takes at least 2 bytes (length and one byte), a logit 2.
	if n := r.count("vocab", 4, maxTokens); n > 0 {
		spec.Vocab = make([]string, n)
		for i := range spec.Vocab {
			spec.Vocab[i] = r.string("vocab")
		}
		spec.Logits = make([]float64, n)
		for i := range spec.Logits {
			spec.Logits[i] = r.float("logits")
		}
	}
	spec.Forced = r.forced("forced")
	spec.Edits = r.edits("edits")
	if flags&hasChanges != 0 {
		// Changes are at distinct steps in [1, MaxSteps]; check says so.
		if n := r.count("changes", 1+minSettings, MaxSteps); n > 0 {
			spec.Changes = make([]session.Change, n)
			for i := range spec.Changes {
				spec.Changes[i] = session.Change{Step: r.int("changes"), Sampler: r.settings("changes")}
			}
		}
	}
	if flags&hasAt != 0 {
		if s.Page.At = r.int("at"); r.err == nil && s.Page.At == 0 {
			r.fail("at", "step 0, but the steps are numbered from 1")
		}
	}
	if flags&hasExtras != 0 {
		r.extras(&s, flags)
	} else if flags&changesSession != 0 {
		r.fail("extras", "flag bit 4 says a record changes the session, but there is no extras section")
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d bytes after the last field", len(r.b))
	}
	return s
}

// extras reads the extras section into s: the page's records as they are,
// and the session's. flags must say whether a record changes the session.
func (r *reader) extras(s *State, flags byte) {
	n := r.count("extras", 2, maxRecords) // a tag and a length, at least
	last := uint64(0)
	sessionRecord := false
	defer func() {
		if r.err == nil && sessionRecord != (flags&changesSession != 0) {
			r.fail("extras", "flag bit 4 is %v, but a record that changes the session is %v", flags&changesSession != 0, sessionRecord)
		}
	}()
	for i := range n {
		tag := r.uint("extras")
		data := r.string("extras")
		body := reader{b: []byte(data)}
		if r.err != nil {
			return
		}
		if tag <= last {
			r.fail("extras", "record %d has tag %d, not above %d", i, tag, last)
			return
		}
		last = tag
		switch {
		case tag < sessionTags:
			s.Page.Records = append(s.Page.Records, Record{Tag: int(tag), Body: data})
		case tag == tagLlama:
			body.llama(&s.Spec)
			sessionRecord = true
		case tag == tagTree:
			s.Spec.Branches = body.tree()
			sessionRecord = true
		case tag == tagIgnoreEOS:
			body.ignoreEOS(&s.Spec)
			sessionRecord = true
		case tag == tagChat:
			body.chat(&s.Spec)
			sessionRecord = true
		default:
			r.fail("extras", "record %d has tag %d, which changes the session, but this nexttoken does not know it (%w)", i, tag, errNewer)
			return
		}
		if body.err != nil {
			r.err = body.err
			return
		}
	}
}

// llama reads the record of tag tagLlama, all of r, into spec's settings.
func (r *reader) llama(spec *session.Spec) {
	// An entry takes at least 13 bytes: 6 uints and strings, 4 numbers.
	n := r.count("llama", 13, len(spec.Changes)+1)
	prev := -1
	for range n {
		k := r.int("llama")
		if r.err == nil && (k <= prev || k > len(spec.Changes)) {
			r.fail("llama", "settings %d, not above %d and at most the %d changes", k, prev, len(spec.Changes))
		}
		if r.err != nil {
			return
		}
		prev = k
		set := &spec.Sampler
		if k > 0 {
			set = &spec.Changes[k-1].Sampler
		}
		r.llamaOwn("llama", set)
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("llama", "%d bytes after the record's last field", len(r.b))
	}
}

// ignoreEOS reads the record of tag tagIgnoreEOS, all of r, into the
// settings of spec it numbers (allSettings): at least one, each once.
func (r *reader) ignoreEOS(spec *session.Spec) {
	all := allSettings(spec)
	n := r.count("ignore_eos", 1, len(all))
	if r.err == nil && n == 0 {
		r.fail("ignore_eos", "no settings")
	}
	prev := -1
	for range n {
		k := r.int("ignore_eos")
		if r.err == nil && (k <= prev || k >= len(all)) {
			r.fail("ignore_eos", "settings %d, not above %d and below the %d settings", k, prev, len(all))
		}
		if r.err != nil {
			return
		}
		prev = k
		all[k].IgnoreEOS = true
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("ignore_eos", "%d bytes after the record's last field", len(r.b))
	}
}

// llamaOwn reads what writer.llamaOwn writes into set.
func (r *reader) llamaOwn(field string, set *sampler.Settings) {
	set.Sequence = r.string(field)
	set.Mirostat = r.int(field)
	set.MirostatTau = r.float(field)
	set.MirostatEta = r.float(field)
	set.DryMultiplier = r.float(field)
	set.DryBase = r.float(field)
	set.DryAllowedLength = r.int(field)
	set.DryPenaltyLastN = r.int(field)
}

// forced reads what writer.forced writes; a forced token takes at least 2
// bytes.
func (r *reader) forced(field string) []session.Force {
	n := r.count(field, 2, math.MaxInt)
	if n == 0 {
		return nil
	}
	forced := make([]session.Force, n)
	for i := range forced {
		forced[i] = session.Force{Step: r.int(field), Token: r.int(field)}
	}
	return forced
}

// edits reads what writer.edits writes; an edit takes at least 4 bytes.
func (r *reader) edits(field string) []session.Edit {
	n := r.count(field, 4, math.MaxInt)
	if n == 0 {
		return nil
	}
	edits := make([]session.Edit, n)
	for i := range edits {
		edits[i] = session.Edit{Step: r.int(field), Token: r.int(field), Logit: r.float(field)}
	}
	return edits
}

// tree reads the record of tag tagTree, all of r: the branches, at least
// one and at most session.MaxBranches, each at least 6 bytes (3 uints and
// 3 counts), a change at least 1+minSettings+minLlamaOwn.
func (r *reader) tree() []session.Branch {
	n := r.count("tree", 6, session.MaxBranches)
	if r.err == nil && n == 0 {
		r.fail("tree", "no branches")
	}
	branches := make([]session.Branch, n)
	for i := range branches {
		b := &branches[i]
		b.From, b.At, b.Steps = r.int("tree"), r.int("tree"), r.int("tree")
		b.Forced = r.forced("tree")
		b.Edits = r.edits("tree")
		if m := r.count("tree", 1+minSettings+minLlamaOwn, MaxSteps); m > 0 {
			b.Changes = make([]session.Change, m)
			for k := range b.Changes {
				c := &b.Changes[k]
				c.Step = r.int("tree")
				c.Sampler = r.settings("tree")
				r.llamaOwn("tree", &c.Sampler)
			}
		}
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("tree", "%d bytes after the record's last field", len(r.b))
	}
	return branches
}

// minLlamaOwn is the fewest bytes llama.cpp's own settings take: a byte
// for the sequence's length and for each uint, two for each number.
const minLlamaOwn = 1 + 1 + 4*2 + 1 + 1

// compressors keeps flate writers for reuse: a new one allocates about
// 800 KB, and the playground encodes its address after every change.
var compressors = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestCompression) // the level is valid
	return w
}}

// deflate compresses b as raw DEFLATE at the best compression.
func deflate(b []byte) []byte {
	var buf bytes.Buffer
	w := compressors.Get().(*flate.Writer)
	defer compressors.Put(w)
	w.Reset(&buf)
	// Neither can fail: a bytes.Buffer takes any write.
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// inflate decompresses raw DEFLATE into a buffer of MaxDecoded bytes and
// one more, which only a stream too long to accept can fill.
func inflate(b []byte) ([]byte, error) {
	in := bytes.NewReader(b) // an io.ByteReader, so flate reads no further than its stream
	r := flate.NewReader(in)
	buf := make([]byte, MaxDecoded+1)
	n, err := 0, error(nil)
	for n < len(buf) && err == nil {
		var m int
		m, err = r.Read(buf[n:])
		n += m
	}
	switch {
	case n > MaxDecoded:
		return nil, fmt.Errorf("the data decompresses to more than %d bytes", MaxDecoded)
	case err == io.ErrUnexpectedEOF:
		return nil, fmt.Errorf("the compressed data ends early")
	case err != io.EOF:
		return nil, fmt.Errorf("the compressed data is corrupt: %v", err)
	case in.Len() > 0:
		return nil, fmt.Errorf("%d bytes after the compressed data", in.Len())
	}
	return buf[:n], nil
}
