// Package refcases makes the cases on which package llamacpp is compared
// with llama.cpp itself: go run ./gen writes them for the C++ harness in
// ../../testdata, and TestMatchesLlamaCpp makes them again, so that the
// repository holds llama.cpp's answers but no logits. Everything comes
// from a fixed splitmix64 stream and float32 arithmetic (no math library),
// so the cases are the same on every machine and Go version.
package refcases

import (
	"fmt"
	"io"
	"math"
	"strings"

	"nexttoken/engine/sampler/llamacpp"
)

// Case is one run of a chain: Steps tokens sampled in turn from the same
// logits, each appended to the history before the next (llama.cpp's
// llama_sampler_accept), with the generators carried over.
type Case struct {
	Name    string
	Params  llamacpp.Params
	Logits  []float32
	History []int32
	Steps   int
}

// rng is splitmix64.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// unit is uniform in [0, 1) with 24 bits.
func (r *rng) unit() float32 { return float32(r.next()>>40) / (1 << 24) }

func pick[T any](r *rng, xs ...T) T { return xs[r.intn(len(xs))] }

var sizes = []int{2, 3, 4, 5, 7, 8, 16, 17, 31, 40, 41, 64, 100, 127, 128, 129, 200, 256, 257, 300, 512, 1000, 1024, 1025, 1500, 2048, 4096}

// logits makes n logits of one of several shapes: bell-shaped (a sum of
// four uniforms) at several scales, quantised to make ties, with −Inf
// entries, one or two dominant tokens, all equal, and huge values beyond
// llama.cpp's sorting buckets.
func logits(r *rng, n int, shape int) []float32 {
	l := make([]float32, n)
	scale := pick(r, float32(0.5), 2, 5, 15)
	for i := range l {
		l[i] = (r.unit() + r.unit() + r.unit() + r.unit() - 2) * scale
	}
	switch shape {
	case 1: // ties: a few levels
		q := pick(r, float32(1), 4)
		for i := range l {
			l[i] = float32(int(l[i]*q)) / q
		}
	case 2: // −Inf entries, sometimes all but one
		frac := pick(r, 0.1, 0.5, 0.9)
		for i := range l {
			if float64(r.unit()) < frac {
				l[i] = float32(math.Inf(-1))
			}
		}
		if r.intn(4) == 0 {
			for i := range l {
				l[i] = float32(math.Inf(-1))
			}
			l[r.intn(n)] = 1
		}
	case 3: // peaked
		for range 1 + r.intn(2) {
			l[r.intn(n)] += pick(r, float32(5), 12, 30)
		}
	case 4: // all equal
		v := pick(r, float32(0), -3.5, 7)
		for i := range l {
			l[i] = v
		}
	case 5: // huge and out-of-bucket values
		for range 1 + r.intn(4) {
			l[r.intn(n)] = pick(r, float32(1e10), -1e10, 3e9, 25, -40, 10, -10)
		}
	}
	return l
}

func history(r *rng, n int) []int32 {
	h := make([]int32, r.intn(80))
	hot := min(n, 1+r.intn(6))
	for i := range h {
		if r.intn(2) == 0 {
			h[i] = int32(r.intn(hot)) // repeats
		} else {
			h[i] = int32(r.intn(n))
		}
	}
	return h
}

// stageParams switches on stage s with settings drawn from r, boundaries
// included, for a vocabulary of n; DRY is dryParams'.
func stageParams(r *rng, p *llamacpp.Params, s llamacpp.Sampler, n int) {
	switch s {
	case llamacpp.Penalties:
		p.PenaltyLastN = pick(r, int32(0), 1, 3, 16, 64)
		p.PenaltyRepeat = pick(r, float32(1), 1.1, 1.5, 0.8, 2)
		p.PenaltyFreq = pick(r, float32(0), 0.3, -0.2, 1)
		p.PenaltyPresent = pick(r, float32(0), 0.5, -1)
	case llamacpp.TopNSigma:
		p.TopNSigma = pick(r, float32(-1), 0, 0.5, 1, 1.5, 2, 3)
	case llamacpp.TopK:
		p.TopK = pick(r, int32(0), 1, 2, int32(n-1), int32(n), int32(n+5), 10, 40, 128, 129, 300, -1)
	case llamacpp.Typical:
		p.TypP = pick(r, float32(0), 0.2, 0.5, 0.9, 0.95, 0.99, 1)
	case llamacpp.TopP:
		p.TopP = pick(r, float32(0), 0.1, 0.5, 0.8, 0.9, 0.95, 0.999, 1, -0.5)
	case llamacpp.MinP:
		p.MinP = pick(r, float32(0), 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 0.9, 1)
	case llamacpp.XTC:
		p.XTCProbability = pick(r, float32(0), 0.3, 0.5, 1)
		p.XTCThreshold = pick(r, float32(0.01), 0.05, 0.1, 0.2, 0.3, 0.5, 0.6)
	case llamacpp.Temp:
		p.Temp = pick(r, float32(0), -1, 1e-6, 0.1, 0.5, 0.8, 1, 1.5, 3, 100)
		if r.intn(3) == 0 {
			p.DynatempRange = pick(r, float32(0.2), 0.5, 1, 2)
			p.DynatempExponent = pick(r, float32(0.5), 1, 2, 3)
		}
	}
}

// dryParams switches DRY on, or leaves it off by one of its values, with
// settings and breakers drawn from r. (stageParams leaves DRY as Defaults
// has it, off, so that the cases made before DRY stay as they were.)
func dryParams(r *rng, p *llamacpp.Params) {
	p.DryMultiplier = pick(r, float32(0.8), 0.8, 0.5, 2, 1e-3, -0.5, 0)
	p.DryBase = pick(r, float32(1.75), 1.75, 1, 1.000001, 1.0000011, 1.5, 2, 3, 50, 0.9)
	p.DryAllowedLength = pick(r, int32(2), 2, 0, 1, 3, 5, -1)
	p.DryPenaltyLastN = pick(r, int32(64), 64, 16, 200, 1000, 5, 1, 0, -1)
	p.DryBreakers = pick(r, llamacpp.DefaultBreakers, llamacpp.DefaultBreakers, nil,
		[]string{"ab", "*"}, []string{"a:b", "\n\n", ""}, []string{"…"}, []string{"c…a", " *", ":"},
		[]string{strings.Repeat("ab:", 15)}, []string{"a" + strings.Repeat("d", 30)}, []string{"\"", "b\"a", "*c*"})
}

var chains = []string{
	"edskypmxt", "kypmxt", "kpmt", "tkpm", "mt", "tm", "pt", "tp", "kt", "yt",
	"xt", "st", "et", "sk", "mk", "pmk", "xkpt", "typm", "ekt", "epmt", "kyp", "smxt",
}

// Cases returns the cases, about 1,900, in a fixed order.
func Cases() []Case {
	r := &rng{s: 20240601}
	var cs []Case
	add := func(family string, p llamacpp.Params, l []float32, h []int32, steps int) {
		cs = append(cs, Case{
			Name:   fmt.Sprintf("%s-%d", family, len(cs)),
			Params: p, Logits: l, History: h, Steps: steps,
		})
	}
	seed := func() uint32 { return pick(r, uint32(0), 1, 42, 5489, 123456789, 0xFFFFFFFE) }
	// The default chain.
	for i := range 200 {
		n := sizes[r.intn(len(sizes))]
		p := llamacpp.Defaults()
		p.Seed = seed()
		if i%4 == 0 {
			stageParams(r, &p, llamacpp.Penalties, n)
		}
		add("default", p, logits(r, n, r.intn(6)), history(r, n), 1+r.intn(3))
	}
	// Each stage alone, then dist.
	for _, s := range []llamacpp.Sampler{llamacpp.Penalties, llamacpp.TopNSigma, llamacpp.TopK, llamacpp.Typical, llamacpp.TopP, llamacpp.MinP, llamacpp.XTC, llamacpp.Temp} {
		for range 100 {
			n := sizes[r.intn(len(sizes))]
			p := llamacpp.Defaults()
			p.Seed = seed()
			p.Samplers = []llamacpp.Sampler{s}
			p.MinKeep = pick(r, int32(0), 0, 1, 3, 50)
			stageParams(r, &p, s, n)
			add("alone-"+s.String(), p, logits(r, n, r.intn(6)), history(r, n), 1+r.intn(2))
		}
	}
	// Reordered chains with every setting drawn.
	for i := range 450 {
		n := sizes[r.intn(len(sizes))]
		p := llamacpp.Defaults()
		p.Seed = seed()
		p.Samplers, _ = llamacpp.ParseSequence(chains[i%len(chains)])
		p.MinKeep = pick(r, int32(0), 0, 1, 5)
		for _, s := range p.Samplers {
			stageParams(r, &p, s, n)
		}
		add("chain-"+chains[i%len(chains)], p, logits(r, n, r.intn(6)), history(r, n), 1+r.intn(3))
	}
	// A full vocabulary.
	for range 24 {
		n := pick(r, 32000, 32000, 8192)
		p := llamacpp.Defaults()
		p.Seed = seed()
		if r.intn(2) == 0 {
			p.Samplers, _ = llamacpp.ParseSequence(pick(r, "kypmxt", "pt", "mt", "tm", "yt", "st", "edskypmxt"))
			for _, s := range p.Samplers {
				stageParams(r, &p, s, n)
			}
		}
		add("vocab", p, logits(r, n, r.intn(6)), history(r, n), 1)
	}
	// Mirostat 1 and 2 (temp, then mirostat), over several steps so
	// that mu moves.
	for i := range 160 {
		n := sizes[r.intn(len(sizes))]
		if i%20 == 0 {
			n = 32000
		}
		p := llamacpp.Defaults()
		p.Seed = seed()
		p.Mirostat = int32(1 + i%2)
		p.MirostatTau = pick(r, float32(0.5), 1, 2, 3, 5, 8)
		p.MirostatEta = pick(r, float32(0.05), 0.1, 0.3, 1)
		p.Temp = pick(r, float32(1), 0.8, 0.5, 1.5, 0)
		add(fmt.Sprintf("mirostat%d", p.Mirostat), p, logits(r, n, r.intn(6)), history(r, n), 2+r.intn(7))
	}
	// DRY over a synthetic vocabulary, alone, then in chains, then over a
	// full one, on histories that repeat themselves.
	for i := range 300 {
		n := pick(r, 16, 31, 64, 100, 256, 257, 1000, 2048)
		seq := "d"
		switch {
		case i >= 280:
			n, seq = 32000, pick(r, "d", "edskypmxt")
		case i >= 160:
			seq = dryChains[i%len(dryChains)]
		}
		p := llamacpp.Defaults()
		p.Seed = seed()
		p.Samplers, _ = llamacpp.ParseSequence(seq)
		p.MinKeep = pick(r, int32(0), 0, 1, 5)
		for _, s := range p.Samplers {
			stageParams(r, &p, s, n)
		}
		dryParams(r, &p)
		v := vocabulary(r, n)
		p.Vocab = v
		add("dry-"+seq, p, logits(r, n, r.intn(6)), repetitive(r, v), 1+r.intn(3))
	}
	return cs
}

var dryChains = []string{"dkt", "edskypmxt", "kdt", "dpmt", "ed", "de", "tdk", "xdt", "mdt"}

// Pieces is a synthetic vocabulary for the DRY cases: token id i's text
// is the i-th piece. It tokenizes greedily: at each place the longest
// piece that starts there, the lowest id among equals, and a byte that
// starts no piece is skipped. harness.cpp's llama_vocab does the same.
type Pieces struct {
	texts   []string
	ids     map[string]int32 // the lowest id of each text
	longest int              // bytes in the longest text
}

// NewPieces returns the vocabulary of texts.
func NewPieces(texts []string) *Pieces {
	v := &Pieces{texts: texts, ids: map[string]int32{}}
	for i, t := range texts {
		if _, dup := v.ids[t]; !dup && t != "" {
			v.ids[t] = int32(i)
		}
		v.longest = max(v.longest, len(t))
	}
	return v
}

// Len is the number of tokens.
func (v *Pieces) Len() int { return len(v.texts) }

// Piece is token id's text.
func (v *Pieces) Piece(id int32) string { return v.texts[id] }

// Tokenize is the greedy tokenization of text.
func (v *Pieces) Tokenize(text string) []int32 {
	var ids []int32
	for len(text) > 0 {
		n := min(v.longest, len(text))
		for ; n > 0; n-- {
			if id, ok := v.ids[text[:n]]; ok {
				ids = append(ids, id)
				break
			}
		}
		text = text[max(n, 1):]
	}
	return ids
}

// atoms are the bytes and strings the synthetic pieces are made of: the
// default breakers, letters, a space, and "…" whole and byte by byte.
var atoms = []string{"a", "b", "c", "d", " ", "\n", ":", "\"", "*", "\xe2", "\x80", "\xa6", "…"}

// vocabulary makes n pieces: the atoms first, then joins of two to four.
func vocabulary(r *rng, n int) *Pieces {
	v := make([]string, n)
	for i := range v {
		if i < len(atoms) {
			v[i] = atoms[i]
			continue
		}
		for range 2 + r.intn(3) {
			if r.intn(3) == 0 {
				v[i] += pick(r, atoms...)
			} else {
				v[i] += pick(r, "a", "b", "c", "d", " ")
			}
		}
	}
	return NewPieces(v)
}

// repetitive makes a history of 2 to 300 tokens that repeats a few
// segments of tokens, whole or in part, with some tokens between them.
func repetitive(r *rng, v *Pieces) []int32 {
	segs := make([][]int32, 1+r.intn(3))
	for i := range segs {
		segs[i] = make([]int32, 1+r.intn(12))
		for j := range segs[i] {
			segs[i][j] = int32(r.intn(min(v.Len(), 40)))
		}
	}
	h := []int32{}
	for want := 2 + r.intn(300); len(h) < want; {
		switch seg := segs[r.intn(len(segs))]; r.intn(5) {
		case 0:
			h = append(h, int32(r.intn(v.Len())))
		case 1:
			h = append(h, seg[r.intn(len(seg)):]...)
		default:
			h = append(h, seg...)
		}
	}
	return h
}

// Sequence is p.Samplers as llama.cpp's letters.
func Sequence(p llamacpp.Params) string {
	var b strings.Builder
	for _, s := range p.Samplers {
		b.WriteByte(byte(s))
	}
	return b.String()
}

// Write writes cs in the harness's input format, one field per line
// (floats as their float32 bits in hex, so that nothing is rounded):
//
//	case NAME
//	seq LETTERS
//	ints SEED MIN_KEEP TOP_K PENALTY_LAST_N STEPS
//	floats TOP_P MIN_P XTC_P XTC_T TYP_P TEMP DYN_RANGE DYN_EXP REPEAT FREQ PRESENT TOP_N_SIGMA
//	mirostat VERSION TAU ETA
//	dry MULTIPLIER BASE ALLOWED_LENGTH PENALTY_LAST_N
//	breakers N TEXT…
//	vocab N TEXT…        (the pieces of Params.Vocab; 0 when it is nil)
//	history N ID…
//	logits N BITS…
//
// where TEXT is "x" and the bytes in hex, so that an empty string or one
// with spaces is one field.
func Write(w io.Writer, cs []Case) error {
	for _, c := range cs {
		writeParams(w, "case", c.Name, c.Params, c.Steps, c.History)
		fmt.Fprintf(w, "\nlogits")
		writeLogits(w, c.Logits)
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return nil
}

// writeParams writes the lines from the record's kind and name to its
// history, without the last newline.
func writeParams(w io.Writer, kind, name string, p llamacpp.Params, steps int, history []int32) {
	fmt.Fprintf(w, "%s %s\nseq %s\nints %d %d %d %d %d\nfloats", kind, name, Sequence(p), p.Seed, p.MinKeep, p.TopK, p.PenaltyLastN, steps)
	for _, f := range []float32{p.TopP, p.MinP, p.XTCProbability, p.XTCThreshold, p.TypP, p.Temp, p.DynatempRange, p.DynatempExponent, p.PenaltyRepeat, p.PenaltyFreq, p.PenaltyPresent, p.TopNSigma} {
		fmt.Fprintf(w, " %08x", math.Float32bits(f))
	}
	fmt.Fprintf(w, "\nmirostat %d %08x %08x", p.Mirostat, math.Float32bits(p.MirostatTau), math.Float32bits(p.MirostatEta))
	fmt.Fprintf(w, "\ndry %08x %08x %d %d", math.Float32bits(p.DryMultiplier), math.Float32bits(p.DryBase), p.DryAllowedLength, p.DryPenaltyLastN)
	writeTexts(w, "breakers", p.DryBreakers)
	var pieces []string
	if p.Vocab != nil {
		pieces = make([]string, p.Vocab.Len())
		for i := range pieces {
			pieces[i] = p.Vocab.Piece(int32(i))
		}
	}
	writeTexts(w, "vocab", pieces)
	fmt.Fprintf(w, "\nhistory %d", len(history))
	for _, h := range history {
		fmt.Fprintf(w, " %d", h)
	}
}

func writeTexts(w io.Writer, name string, texts []string) {
	fmt.Fprintf(w, "\n%s %d", name, len(texts))
	for _, t := range texts {
		fmt.Fprintf(w, " x%x", t)
	}
}

func writeLogits(w io.Writer, logits []float32) {
	fmt.Fprintf(w, " %d", len(logits))
	for _, l := range logits {
		fmt.Fprintf(w, " %08x", math.Float32bits(l))
	}
}
