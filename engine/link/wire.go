package link

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math"
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
	w.string(set.Mode)
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
	w.string(s.View)
	w.int(spec.Steps)
	w.settings(spec.Sampler)
	w.int(len(spec.Vocab))
	for _, v := range spec.Vocab {
		w.string(v)
	}
	for _, l := range spec.Logits {
		w.float(l)
	}
	w.int(len(spec.Forced))
	for _, f := range spec.Forced {
		w.int(f.Step)
		w.int(f.Token)
	}
	w.int(len(spec.Edits))
	for _, e := range spec.Edits {
		w.int(e.Step)
		w.int(e.Token)
		w.float(e.Logit)
	}
	if len(spec.Changes) > 0 {
		flags |= hasChanges
		w.int(len(spec.Changes))
		for _, c := range spec.Changes {
			w.int(c.Step)
			w.settings(c.Sampler)
		}
	}
	if s.At > 0 {
		flags |= hasAt
		w.int(s.At)
	}
	// The records, by ascending tag; a State without them writes no
	// section, so its link is the one it always was.
	var records []record
	if c := s.Compare; c != (Compare{}) {
		var body writer
		body.string(c.Chains[0])
		body.string(c.Chains[1])
		body.uint(boolUint(c.Own))
		records = append(records, record{tagCompare, body})
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

// The tags of the records.
const (
	tagCompare = 1 // State.Compare: chain A, chain B (strings), own defaults (uint, 0 or 1)

	// maxRecords bounds the section: far more tags than will ever be
	// defined, and far fewer than the data could claim.
	maxRecords = 64
)

func boolUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
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
		Mode:              r.string(field("sampler")),
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
	s.View = r.string("view")
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
	if n := r.count("forced", 2, math.MaxInt); n > 0 {
		spec.Forced = make([]session.Force, n)
		for i := range spec.Forced {
			spec.Forced[i] = session.Force{Step: r.int("forced"), Token: r.int("forced")}
		}
	}
	if n := r.count("edits", 4, math.MaxInt); n > 0 {
		spec.Edits = make([]session.Edit, n)
		for i := range spec.Edits {
			spec.Edits[i] = session.Edit{Step: r.int("edits"), Token: r.int("edits"), Logit: r.float("edits")}
		}
	}
	if flags&hasChanges != 0 {
		// Changes are at distinct steps in [1, maxSteps]; check says so.
		if n := r.count("changes", 1+minSettings, maxSteps); n > 0 {
			spec.Changes = make([]session.Change, n)
			for i := range spec.Changes {
				spec.Changes[i] = session.Change{Step: r.int("changes"), Sampler: r.settings("changes")}
			}
		}
	}
	if flags&hasAt != 0 {
		s.At = r.int("at")
	}
	if flags&hasExtras != 0 {
		r.extras(&s)
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d bytes after the last field", len(r.b))
	}
	return s
}

// extras reads the extras section into s, skipping the records of tags it
// does not know: a newer nexttoken's, for what this page cannot show.
func (r *reader) extras(s *State) {
	n := r.count("extras", 2, maxRecords) // a tag and a length, at least
	last := uint64(0)
	for i := range n {
		tag := r.uint("extras")
		body := reader{b: []byte(r.string("extras"))}
		if r.err != nil {
			return
		}
		if tag <= last {
			r.fail("extras", "record %d has tag %d, not above %d", i, tag, last)
			return
		}
		last = tag
		if tag == tagCompare {
			s.Compare = body.compare()
		}
		if body.err != nil {
			r.err = body.err
			return
		}
	}
}

// compare reads the record of tag tagCompare, all of r.
func (r *reader) compare() Compare {
	c := Compare{Chains: [2]string{r.string("compare"), r.string("compare")}}
	switch own := r.uint("compare"); {
	case own > 1:
		r.fail("compare", "own defaults %d is not 0 or 1", own)
	case len(r.b) > 0:
		r.fail("compare", "%d bytes after the record's last field", len(r.b))
	default:
		c.Own = own == 1
	}
	return c
}

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
