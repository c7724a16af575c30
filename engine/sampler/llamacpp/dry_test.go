package llamacpp

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// letters is a vocabulary of one-letter pieces: token i is the i-th
// letter of its string, and text tokenizes letter by letter.
type letters string

func (v letters) Len() int              { return len(v) }
func (v letters) Piece(id int32) string { return string(v[id]) }
func (v letters) Tokenize(text string) []int32 {
	var ids []int32
	for _, c := range []byte(text) {
		ids = append(ids, int32(strings.IndexByte(string(v), c)))
	}
	return ids
}

// TestDRY works llama_sampler_dry_apply's comment example through by hand:
// in "a b c c b c y a b c" the newest "a b c" also ends at the first c,
// which was followed by c, so c would extend a repetition of 3 and loses
// multiplier·base^(3 − allowed); "b c" also ends at the third c, followed
// by y (a repetition of 2); the c before b is a repetition of 1, below the
// allowed length. Breakers cut the repetitions they stand in.
func TestDRY(t *testing.T) {
	const vocab = letters("abcyx")
	history := []int32{0, 1, 2, 2, 1, 2, 3, 0, 1, 2} // a b c c b c y a b c
	ab := []int32{0, 1}
	tests := []struct {
		name    string
		change  func(*Params)
		history []int32
		stage   string
		want    []float32 // the logits after DRY, by id, from all 0
	}{
		{"the example", nil, history, "dry", []float32{0, 0, -2, -1, 0}},
		{"allowed length 3", func(p *Params) { p.DryAllowedLength = 3 }, history, "dry", []float32{0, 0, -1, 0, 0}},
		{"y a breaker, never penalised", func(p *Params) { p.DryBreakers = []string{"y"} }, history, "dry", []float32{0, 0, -2, 0, 0}},
		{"b a breaker: repetitions of 1 at most", func(p *Params) { p.DryBreakers = []string{"b"} }, history, "dry", []float32{0, 0, 0, 0, 0}},
		{"the sequence a b a breaker", func(p *Params) { p.DryBreakers = []string{"ab"} }, history, "dry", []float32{0, 0, 0, 0, 0}},
		{"the sequence b y is nowhere", func(p *Params) { p.DryBreakers = []string{"by"} }, history, "dry", []float32{0, 0, -2, -1, 0}},
		{"multiplier 0.5", func(p *Params) { p.DryMultiplier = 0.5 }, history, "dry", []float32{0, 0, -1, -0.5, 0}},
		{"the last 3 tokens repeat nothing", func(p *Params) { p.DryPenaltyLastN = 3 }, history, "dry", []float32{0, 0, 0, 0, 0}},
		// (ab)^30: the newest 58 tokens also end two back, followed by a;
		// 50^56 overflows float32, so the exponent stops at
		// int(88.7228391/logf(50)) = 22.
		{"the exponent's cap", func(p *Params) { p.DryBase = 50 }, repeat(ab, 30), "dry",
			[]float32{-float32(powInt(50, 22)), 0, 0, 0, 0}},
		{"penalty_last_n -1 is off", func(p *Params) { p.DryPenaltyLastN = -1 }, history, "?dry", []float32{0, 0, 0, 0, 0}},
		{"base below 1 is off", func(p *Params) { p.DryBase = 0.99 }, history, "?dry", []float32{0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		p := Defaults()
		p.Samplers = []Sampler{DRY}
		p.DryMultiplier, p.DryBase, p.DryBreakers, p.Vocab = 1, 2, nil, vocab
		if tt.change != nil {
			tt.change(&p)
		}
		c, err := New(p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		r, err := c.Sample(make([]float32, len(vocab)), tt.history)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		st := r.Stages[0]
		got := make([]float32, len(vocab))
		for _, tok := range st.Tokens {
			got[tok.ID] = tok.Logit
		}
		if st.Name != tt.stage || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %s %v, want %s %v", tt.name, st.Name, got, tt.stage, tt.want)
		}
	}
}

func repeat(s []int32, n int) []int32 {
	var out []int32
	for range n {
		out = append(out, s...)
	}
	return out
}

// TestOverlappingSequences checks get_overlapping_token_sequences on a
// vocabulary whose pieces hold a breaker or end with its start.
func TestOverlappingSequences(t *testing.T) {
	v := wordVocab{"a", "b", ":", "x:", "ab", "b:a", "xa", "bab"}
	seqs := map[int32][][]int32{}
	overlappingSequences(v, "ab:", seqs)
	want := map[int32]string{
		0: "[[1 2]]", // "a" + "b:"
		4: "[[2]]",   // "ab" + ":"
		5: "[[1 2]]", // "b:a" ends with a
		6: "[[1 2]]", // "xa"
		7: "[[2]]",   // "bab" ends with ab
	}
	for id := range int32(len(v)) {
		if got := fmt.Sprint(seqs[id]); got != cmp.Or(want[id], "[]") {
			t.Errorf("token %q: %s, want %s", v[id], got, want[id])
		}
	}
	seqs = map[int32][][]int32{}
	overlappingSequences(v, ":", seqs)
	for id, w := range v {
		if _, ok := seqs[int32(id)]; ok != strings.Contains(w, ":") {
			t.Errorf("token %q: a breaker %v, want %v", w, ok, !ok)
		}
	}
}

// wordVocab tokenizes by the longest piece first.
type wordVocab []string

func (v wordVocab) Len() int              { return len(v) }
func (v wordVocab) Piece(id int32) string { return v[id] }
func (v wordVocab) Tokenize(text string) []int32 {
	var ids []int32
	for text != "" {
		best := -1
		for id, p := range v {
			if strings.HasPrefix(text, p) && (best < 0 || len(p) > len(v[best])) {
				best = id
			}
		}
		ids = append(ids, int32(best))
		text = text[len(v[best]):]
	}
	return ids
}

// TestPowInt checks powInt against x^n computed exactly and rounded to
// the nearest double, for float32 bases as DRY's and its exponents.
func TestPowInt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		x := float64(float32(1 + r.Float64()*r.Float64()*60))
		n := r.IntN(200)
		exact := new(big.Float).SetPrec(8000).SetFloat64(1)
		for range n {
			exact.Mul(exact, new(big.Float).SetFloat64(x))
		}
		want, _ := exact.Float64()
		if got := powInt(x, n); got != want && !math.IsInf(want, 1) {
			t.Errorf("powInt(%v, %d) = %v, want %v", x, n, got, want)
		}
	}
}

// TestNewDRYVocab: DRY on with breakers needs a vocabulary to read them
// with; off, or without breakers, it needs none.
func TestNewDRYVocab(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Params)
		wantErr bool
	}{
		{"on with breakers", func(p *Params) {}, true},
		{"on with a vocabulary", func(p *Params) { p.Vocab = letters("ab") }, false},
		{"on without breakers", func(p *Params) { p.DryBreakers = []string{""} }, false},
		{"off by penalty_last_n -1", func(p *Params) { p.DryPenaltyLastN = -1 }, false},
		{"not in the chain", func(p *Params) { p.Samplers = []Sampler{Temp} }, false},
		{"mirostat's chain", func(p *Params) { p.Mirostat = 2 }, false},
	}
	for _, tt := range tests {
		p := Defaults()
		p.DryMultiplier = 0.8
		tt.change(&p)
		_, err := New(p)
		if (err != nil) != tt.wantErr || err != nil && !strings.HasPrefix(err.Error(), "dry_sequence_breakers:") {
			t.Errorf("%s: error %v, want one: %v", tt.name, err, tt.wantErr)
		}
	}
}
