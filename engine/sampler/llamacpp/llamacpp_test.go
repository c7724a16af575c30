package llamacpp

import (
	"math"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/internal/expf"
)

// TestLibm checks the libm functions the chain calls on values glibc 2.36
// computed on x86-64 with FMA (the exhaustive comparison is
// libm_glibc_test.go, build tag glibccheck, which needs cgo); 32.564632 and
// −63.09946 are where glibc's fused multiply-adds round otherwise.
func TestLibm(t *testing.T) {
	tests := []struct {
		name      string
		got, want uint32
	}{
		{"expf.Exp(32.564632)", math.Float32bits(expf.Exp(math.Float32frombits(0x4202422f))), 0x56fc9f1c},
		{"expf.Exp(-63.09946)", math.Float32bits(expf.Exp(math.Float32frombits(0xc27c65d9))), 0x11fa2993},
		{"expf.Exp(88.7099)", math.Float32bits(expf.Exp(math.Float32frombits(0x42b16b78))), 0x7f7cb57b},
		{"expf.Log(0.3)", math.Float32bits(expf.Log(0.3)), 0xbf9a1bc8},
		{"expf.Log(1e-30)", math.Float32bits(expf.Log(1e-30)), 0xc28a27b5},
		{"expf.Log(0.999)", math.Float32bits(expf.Log(0.999)), 0xba8322ca},
		{"expf.Log2(0.3)", math.Float32bits(expf.Log2(0.3)), 0xbfde54e3},
		{"expf.Log2(1e-30)", math.Float32bits(expf.Log2(1e-30)), 0xc2c750d1},
		{"expf.Log2(0.999)", math.Float32bits(expf.Log2(0.999)), 0xbabd3069},
		{"expf.Pow(0.73, 2.5)", math.Float32bits(expf.Pow(0.73, 2.5)), 0x3ee91e64},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %#08x, want %#08x", tt.name, tt.got, tt.want)
		}
	}
	for _, x := range []float32{float32(math.Inf(-1)), -200, -104} {
		if got := expf.Exp(x); got != 0 {
			t.Errorf("expf.Exp(%v) = %v, want 0", x, got)
		}
	}
}

// TestMT19937 checks the generator against the C++ standard's
// requirement: the 10,000th output of a default-constructed (seed 5489)
// std::mt19937 is 4123659995.
func TestMT19937(t *testing.T) {
	var m mt19937
	m.seed(5489)
	var v uint32
	for range 10000 {
		v = m.next()
	}
	if v != 4123659995 {
		t.Errorf("10,000th output = %d, want 4123659995", v)
	}
	m.seed(5489)
	if u := m.canonical64(); !(u >= 0 && u < 1) {
		t.Errorf("canonical64 = %v, not in [0, 1)", u)
	}
}

// TestSorts checks that the libstdc++ ports sort (the order of ties is
// checked against llama.cpp by TestMatchesLlamaCpp).
func TestSorts(t *testing.T) {
	less := func(a, b int) bool { return a > b }
	for _, n := range []int{0, 1, 2, 15, 16, 17, 100, 1000} {
		s := make([]int, n)
		x := uint32(n)
		for i := range s {
			x = x*1664525 + 1013904223
			s[i] = int(x>>24) % 50 // many ties
		}
		want := slices.Clone(s)
		slices.Sort(want)
		slices.Reverse(want)
		got := slices.Clone(s)
		stdSort(got, less)
		if !slices.Equal(got, want) {
			t.Errorf("stdSort(%d) not sorted", n)
		}
		for _, k := range []int{1, n / 2, n} {
			if k < 1 || k > n { // llama.cpp keeps at least one
				continue
			}
			got := slices.Clone(s)
			stdPartialSort(got, k, less)
			if !slices.Equal(got[:k], want[:k]) {
				t.Errorf("stdPartialSort(%d, %d) does not start with the best %d", n, k, k)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Params)
		want   string // in the error; "" for none
	}{
		{"defaults", func(*Params) {}, ""},
		{"NaN temperature", func(p *Params) { p.Temp = float32(math.NaN()) }, "temp:"},
		{"infinite top-p", func(p *Params) { p.TopP = float32(math.Inf(1)) }, "top_p:"},
		{"zero repeat penalty", func(p *Params) { p.PenaltyRepeat = 0 }, "penalty_repeat:"},
		{"tiny repeat penalty", func(p *Params) { p.PenaltyRepeat = 1e-45 }, "penalty_repeat:"},
		{"negative min_keep", func(p *Params) { p.MinKeep = -1 }, "min_keep:"},
		{"penalty_last_n -1", func(p *Params) { p.PenaltyLastN = -1 }, "penalty_last_n:"},
		{"random seed", func(p *Params) { p.Seed = 0xFFFFFFFF }, "seed:"},
		{"mirostat 3", func(p *Params) { p.Mirostat = 3 }, "mirostat:"},
		{"mirostat -1", func(p *Params) { p.Mirostat = -1 }, "mirostat:"},
		{"mirostat 2", func(p *Params) { p.Mirostat = 2 }, ""},
		{"NaN mirostat tau", func(p *Params) { p.Mirostat, p.MirostatTau = 1, float32(math.NaN()) }, "mirostat_tau:"},
		{"infinite mirostat eta", func(p *Params) { p.MirostatEta = float32(math.Inf(-1)) }, "mirostat_eta:"},
		{"mirostat ignores the samplers", func(p *Params) { p.Mirostat, p.Samplers = 1, []Sampler{Infill} }, ""},
		{"DRY on", func(p *Params) { p.DryMultiplier = 0.8 }, ""},
		{"a NUL in a breaker", func(p *Params) { p.DryBreakers = []string{"a\x00b"} }, "dry_sequence_breakers:"},
		{"NaN DRY base", func(p *Params) { p.DryBase = float32(math.NaN()) }, "dry_base:"},
		{"infill", func(p *Params) { p.Samplers = []Sampler{Infill} }, "samplers:"},
		{"negative temperature", func(p *Params) { p.Temp = -1 }, ""},
		{"top-p above 1", func(p *Params) { p.TopP = 5 }, ""},
	}
	for _, tt := range tests {
		p := Defaults()
		tt.change(&p)
		err := p.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one starting %q", tt.name, err, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		names   bool
		want    string // the letters
		wantErr bool
	}{
		{"edskypmxt", false, "edskypmxt", false},
		{"kmt", false, "kmt", false},
		{"kq", false, "", true},
		{"top_k;Min-P;temp", true, "kmt", false},
		{"penalties;dry;top_n_sigma;topk;typ;nucleus;minp;xtc;temperature", true, "edskypmxt", false},
		{"top_k;beam", true, "", true},
	}
	for _, tt := range tests {
		parse := ParseSequence
		if tt.names {
			parse = ParseNames
		}
		got, err := parse(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("%q: error %v", tt.in, err)
			continue
		}
		var b strings.Builder
		for _, s := range got {
			b.WriteByte(byte(s))
		}
		if b.String() != tt.want {
			t.Errorf("%q = %q, want %q", tt.in, b.String(), tt.want)
		}
	}
}

func TestSampleErrors(t *testing.T) {
	c, err := New(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		logits []float32
	}{
		{"none", nil},
		{"NaN", []float32{1, float32(math.NaN())}},
		{"+Inf", []float32{float32(math.Inf(1)), 0}},
	} {
		if _, err := c.Sample(tt.logits, nil); err == nil || !strings.HasPrefix(err.Error(), "logits:") {
			t.Errorf("%s: error %v, want one naming logits", tt.name, err)
		}
	}
}

// TestOverflowIsAnError: a temperature so small that ℓ/T overflows
// float32 (here 1e-40, a float32 subnormal) makes llama.cpp's softmax take
// Inf − Inf, and its draw land anywhere (it chose token 0, at p = 0, before
// this check); the chain says so, naming the temperature, with dist's
// chain and with mirostat's. A temperature that rounds to 0 in float32 is
// greedy, as in llama.cpp, and 8e-27 overflows nothing here.
func TestOverflowIsAnError(t *testing.T) {
	logits := []float32{1, 2, 3, 2.5}
	for _, tt := range []struct {
		name     string
		temp     float32
		mirostat int32
		overflow bool
	}{
		{"1e-40", 1e-40, 0, true},
		{"1e-40 mirostat", 1e-40, 2, true},
		{"8e-27", 8e-27, 0, false},
		{"0", 0, 0, false},
	} {
		p := Defaults()
		p.Temp, p.Mirostat = tt.temp, tt.mirostat
		c, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Sample(logits, nil)
		switch {
		case tt.overflow && (err == nil || !strings.HasPrefix(err.Error(), "temperature: token ")):
			t.Errorf("%s: error %v, want one naming the temperature", tt.name, err)
		case !tt.overflow && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case !tt.overflow && r.Token != 2:
			t.Errorf("%s: token %d, want 2, the only one left", tt.name, r.Token)
		}
	}
}

// TestGreedy: a temperature ≤ 0 leaves one finite logit, the first of the
// largest, which dist then chooses.
func TestGreedy(t *testing.T) {
	p := Defaults()
	p.Samplers = []Sampler{Temp}
	for _, temp := range []float32{0, -1} {
		p.Temp = temp
		c, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Sample([]float32{1, 3, 3, -2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Token != 1 {
			t.Errorf("temp %v: token %d, want 1", temp, r.Token)
		}
	}
}

// TestRestore checks that a chain restored to the State another chain
// had reaches the same generator states, and so the same draws, whether
// it runs forward from behind or is seeded again from ahead.
func TestRestore(t *testing.T) {
	p := Defaults()
	p.XTCProbability, p.XTCThreshold = 0.5, 0.1 // XTC draws too
	logits := []float32{2, 1.9, 1.8, 0.5, 0.1, -1}
	ref, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	var states []State
	var draws []float64
	for range 8 {
		states = append(states, ref.State())
		res, err := ref.Sample(logits, nil)
		if err != nil {
			t.Fatal(err)
		}
		draws = append(draws, res.U)
	}
	if got := ref.State(); got.Dist != 16 || got.XTC != 8 {
		t.Fatalf("after 8 samples State = %+v, want 16 dist and 8 XTC outputs", got)
	}
	c, _ := New(p)
	for _, i := range []int{5, 2, 7, 0, 3, 3} { // forward, back, forward, to the seed, forward, in place
		c.Restore(states[i])
		res, err := c.Sample(logits, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.U != draws[i] || c.dist != ref.dist && i == 7 {
			t.Errorf("restored to step %d (%+v): u = %v, want %v", i, states[i], res.U, draws[i])
		}
	}
}

// TestRestoreMirostat checks that a mirostat chain restored to the State
// another had reaches the same generator and mu, and so the same draws
// and the same mu after them, from behind, from ahead and from the zero
// State.
func TestRestoreMirostat(t *testing.T) {
	logits := []float32{2, 1.9, 1.8, 1.2, 0.5, 0.1, -1, -3}
	for _, version := range []int32{1, 2} {
		p := Defaults()
		p.Mirostat, p.MirostatTau, p.MirostatEta = version, 2, 0.3
		ref, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := ref.State(); s != (State{}) {
			t.Fatalf("mirostat %d: a new chain's State is %+v, not the zero State", version, s)
		}
		var states []State
		var draws []float64
		var mus []float32
		for range 8 {
			states = append(states, ref.State())
			res, err := ref.Sample(logits, nil)
			if err != nil {
				t.Fatal(err)
			}
			draws, mus = append(draws, res.U), append(mus, ref.mu)
		}
		if s := ref.State(); !s.HasMu || s.Dist != 16 || s.XTC != 0 {
			t.Fatalf("mirostat %d: after 8 samples State = %+v, want mu and 16 outputs of its generator", version, s)
		}
		c, _ := New(p)
		for _, i := range []int{5, 2, 7, 0, 3, 3} {
			c.Restore(states[i])
			res, err := c.Sample(logits, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.U != draws[i] || c.mu != mus[i] {
				t.Errorf("mirostat %d: restored to step %d (%+v): u = %v, mu = %v; want %v, %v", version, i, states[i], res.U, c.mu, draws[i], mus[i])
			}
		}
	}
}

// TestCvttss2si checks C's float to int conversion on x86-64, which
// mirostat's k goes through: truncation, and INT_MIN for NaN and values
// out of range (so that a huge k becomes top-k 1 there).
func TestCvttss2si(t *testing.T) {
	tests := []struct {
		x    float32
		want int32
	}{
		{2.9, 2}, {-2.9, -2}, {0.5, 0}, {2147483520, 2147483520}, {-0x1p31, math.MinInt32},
		{0x1p31, math.MinInt32}, {3e9, math.MinInt32}, {-3e9, math.MinInt32},
		{float32(math.Inf(1)), math.MinInt32}, {float32(math.NaN()), math.MinInt32},
	}
	for _, tt := range tests {
		if got := cvttss2si(tt.x); got != tt.want {
			t.Errorf("cvttss2si(%v) = %d, want %d", tt.x, got, tt.want)
		}
	}
}
