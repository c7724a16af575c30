package compare_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/sampler/llamacpp"
	"nexttoken/engine/tokenizer"
	"nexttoken/web/models"
)

// TestDefaults checks that the runtimes' defaults in nexttoken's terms map
// back, through Follow, onto the presets' own; so do llama.cpp's with the
// settings of the stages it leaves off at 0, as links made before they
// showed hold them.
func TestDefaults(t *testing.T) {
	llama := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 9, LlamaSettings: sampler.LlamaSettings{MirostatTau: 5, MirostatEta: 0.1, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: 64}}
	for _, tc := range []struct {
		mode sampler.Mode
		want sampler.Settings
	}{
		{sampler.LlamaCpp, llama},
		{sampler.HF, sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, TopP: 1, RepetitionPenalty: 1, Seed: 9}},
	} {
		got, err := compare.Defaults(tc.mode, 9)
		if err != nil || got != tc.want {
			t.Errorf("Defaults(%s) = %+v, %v\nwant %+v", tc.mode, got, err, tc.want)
		}
		p, _ := compare.Preset(string(tc.mode), 9)
		for _, s := range []sampler.Settings{got, got.InMode(sampler.HF).InMode(tc.mode)} {
			c, err := compare.ForSession(s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Llama, p.Llama) && tc.mode == sampler.LlamaCpp || !reflect.DeepEqual(c.HF, p.HF) && tc.mode == sampler.HF {
				t.Errorf("%s: %+v follows to %+v\nnot the preset %+v", tc.mode, s, c, p)
			}
		}
	}
	if _, err := compare.Defaults(sampler.Chain, 9); err == nil {
		t.Error("Defaults of the chain mode: no error")
	}
	if _, err := compare.Defaults(sampler.LlamaCpp, 1<<32); err == nil {
		t.Error("Defaults of llama.cpp with a seed beyond 32 bits: no error")
	}
}

// TestChainSettings: a runtime's chain starts from its defaults for the
// settings not given; chain and run.c keep the settings they are given
// but for what their mode cannot have.
func TestChainSettings(t *testing.T) {
	llama, err := compare.Defaults(sampler.LlamaCpp, 7)
	if err != nil {
		t.Fatal(err)
	}
	hf, err := compare.Defaults(sampler.HF, 7)
	if err != nil {
		t.Fatal(err)
	}
	from := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.3, TopK: 3, TopP: 0.5, MinP: 0.2, RepetitionPenalty: 1.5, Seed: 7, LlamaSettings: sampler.LlamaSettings{Sequence: "kt", Mirostat: 1, MirostatTau: 2, MirostatEta: 0.5, DryMultiplier: 0.5, DryBase: 2, DryAllowedLength: 3, DryPenaltyLastN: 9}}
	with := func(s sampler.Settings, f func(*sampler.Settings)) sampler.Settings { f(&s); return s }
	for _, tc := range []struct {
		name  string
		given []string
		want  sampler.Settings
	}{
		{"llama.cpp", nil, llama},
		{"LLAMA.CPP", []string{"temperature", "dry_base"}, with(llama, func(s *sampler.Settings) { s.Temperature, s.DryBase = 0.3, 2 })},
		{"mirostat2", nil, with(llama, func(s *sampler.Settings) { s.Mirostat = 2 })},
		{"mirostat2", []string{"mirostat"}, with(llama, func(s *sampler.Settings) { s.Mirostat = 1 })},
		{"edkt", []string{"dry_multiplier"}, with(llama, func(s *sampler.Settings) { s.Sequence, s.DryMultiplier = "edkt", 0.5 })},
		{"edskypmxt", nil, llama}, // llama.cpp's own sequence is no sequence of the reader's
		{"hf", nil, hf},
		{"hf", []string{"top_p", "seed"}, with(hf, func(s *sampler.Settings) { s.TopP = 0.5 })},
		{"hf", []string{"mirostat_tau"}, with(hf, func(s *sampler.Settings) { s.MirostatTau = 2 })}, // for Validate to refuse
		{"chain", nil, sampler.Settings{Mode: sampler.Chain, Temperature: 0.3, TopK: 3, TopP: 0.5, MinP: 0.2, RepetitionPenalty: 1.5, Seed: 7}},
		{"runc", nil, sampler.Settings{Mode: sampler.RunC, Temperature: 0.3, TopP: 0.5, Seed: 7}},
		{"runc", []string{"top_k"}, sampler.Settings{Mode: sampler.RunC, Temperature: 0.3, TopK: 3, TopP: 0.5, Seed: 7}},
	} {
		given := func(p string) bool { return slices.Contains(tc.given, p) }
		got, err := compare.ChainSettings(tc.name, from, given)
		if err != nil || got != tc.want {
			t.Errorf("ChainSettings(%s, given %v) = %+v, %v\nwant %+v", tc.name, tc.given, got, err, tc.want)
		}
	}
	// Ignoring the end of text is the session's, whatever the chain.
	ignoring := with(from, func(s *sampler.Settings) { s.IgnoreEOS = true })
	for _, name := range []string{"llama.cpp", "hf", "chain", "runc"} {
		if got, err := compare.ChainSettings(name, ignoring, nil); err != nil || !got.IgnoreEOS {
			t.Errorf("ChainSettings(%s) of settings ignoring the end of text = %+v, %v", name, got, err)
		}
	}
	if _, err := compare.ChainSettings("beam", from, nil); err == nil {
		t.Error("ChainSettings(beam): no error")
	}
}

// TestForSession checks which settings the runtimes refuse, and that the
// error names the setting.
func TestForSession(t *testing.T) {
	llama := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 7}
	with := func(s sampler.Settings, f func(*sampler.Settings)) sampler.Settings { f(&s); return s }
	for _, tc := range []struct {
		name string
		s    sampler.Settings
		want string // in the error; "" for none
	}{
		{"llama.cpp", llama, ""},
		{"llama.cpp greedy", with(llama, func(s *sampler.Settings) { s.Temperature = 0 }), ""},
		{"llama.cpp penalty off as 0", with(llama, func(s *sampler.Settings) { s.RepetitionPenalty = 0 }), ""},
		{"llama.cpp largest seed", with(llama, func(s *sampler.Settings) { s.Seed = 1<<32 - 2 }), ""},
		{"llama.cpp seed beyond 32 bits", with(llama, func(s *sampler.Settings) { s.Seed = 1 << 32 }), "seed 4294967296 does not fit llama.cpp's 32 bits"},
		{"llama.cpp LLAMA_DEFAULT_SEED", with(llama, func(s *sampler.Settings) { s.Seed = 1<<32 - 1 }), "seed: 4294967295 is LLAMA_DEFAULT_SEED"},
		{"hf", with(llama, func(s *sampler.Settings) { s.Mode = sampler.HF }), ""},
		{"hf greedy", with(llama, func(s *sampler.Settings) { s.Mode, s.Temperature = sampler.HF, 0 }),
			"sampler: hf mode: hf: temperature = 0, must be positive and finite (greedy decoding is do_sample=False, not temperature 0)"},
		{"chain", with(llama, func(s *sampler.Settings) { s.Mode = sampler.Chain }), "not another runtime's chain"},
		{"llama.cpp mirostat 2", with(llama, func(s *sampler.Settings) { s.Mirostat, s.MirostatTau, s.MirostatEta = 2, 5, 0.1 }), ""},
		{"llama.cpp's letters", with(llama, func(s *sampler.Settings) { s.Sequence = "edkt" }), ""},
		{"llama.cpp, a letter it has not", with(llama, func(s *sampler.Settings) { s.Sequence = "ekq" }), "unknown letter 'q'"},
		{"llama.cpp DRY", with(llama, func(s *sampler.Settings) { s.DryMultiplier, s.DryBase, s.DryPenaltyLastN = 0.8, 1.75, 64 }), ""},
		{"llama.cpp DRY, base below 1", with(llama, func(s *sampler.Settings) { s.DryMultiplier, s.DryBase = 0.8, 0.5 }),
			"sampler: dry_base: 0.5 is below 1, which would switch DRY off (llama.cpp's default is 1.75)"},
	} {
		_, err := compare.ForSession(tc.s)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestStepper checks a stepper against the chains Run makes: the same
// token and stages on the first step, its compact summaries equal to its
// recorded ones, and llama.cpp's generators carried from step to step as
// one llamacpp.Chain carries them.
func TestStepper(t *testing.T) {
	logits := []float64{2, 1.5, 1.4, 0.3, -1, 0.7, 1.45, -2}
	history := []int{1, 2, 1}
	words, err := tokenizer.NewWords(tokenizer.WordVocab([]string{"a", "b", "c", ":", "d", "e", "f", "g"}))
	if err != nil {
		t.Fatal(err)
	}
	vocab := compare.Vocab(words)
	for _, s := range []sampler.Settings{
		{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.2, Seed: 7},
		{Mode: sampler.LlamaCpp, Temperature: 0, TopK: 3, Seed: 7},
		{Mode: sampler.LlamaCpp, Temperature: 1.5, TopK: 1, Seed: 3}, // one candidate: drawn without a sum
		{Mode: sampler.LlamaCpp, Temperature: 1.2, Seed: 5, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, MirostatTau: 3, MirostatEta: 0.3}},
		{Mode: sampler.LlamaCpp, Temperature: 1.2, Seed: 5, LlamaSettings: sampler.LlamaSettings{Mirostat: 1, MirostatTau: 2, MirostatEta: 0.1}},
		{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 5, TopK: 4, LlamaSettings: sampler.LlamaSettings{Sequence: "dkt", DryMultiplier: 0.8, DryBase: 1.75, DryPenaltyLastN: 64}},
		{Mode: sampler.HF, Temperature: 1.3, TopK: 5, TopP: 0.9, RepetitionPenalty: 1.2, Seed: 7},
	} {
		st, err := compare.NewStepper(s, vocab)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := compare.ForSession(s)
		c.Llama.Vocab = vocab
		out, err := compare.Run(c, logits, history)
		if err != nil {
			t.Fatal(err)
		}
		rng, gen := sampler.NewRNG(s.Seed), llamacpp.State{}
		rec, err := st.Choose(logits, history, &rng, &gen, true)
		if err != nil {
			t.Fatal(err)
		}
		rng2, gen2 := sampler.NewRNG(s.Seed), llamacpp.State{}
		compact, err := st.Choose(logits, history, &rng2, &gen2, false)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Token != out.Token || rec.Draw.U != out.U || len(rec.Stages) != len(out.Stages) {
			t.Errorf("%+v: token %d u %v, %d stages; Run: %d, %v, %d", s, rec.Token, rec.Draw.U, len(rec.Stages), out.Token, out.U, len(out.Stages))
		}
		for i, rs := range rec.Stages {
			cs := compact.Stages[i]
			if rs.Name != cs.Name || rs.Survivors != cs.Survivors || rs.Affected != cs.Affected || rs.RemovedMass != cs.RemovedMass ||
				i < len(out.Stages) && (rs.Name != out.Stages[i].Name || rs.Survivors != len(out.Stages[i].Kept)) {
				t.Errorf("%+v: stage %d recorded %+v, compact %+v", s, i, rs, cs)
			}
		}
		d, cd := *rec.Draw, *compact.Draw
		d.Order, d.CDF = nil, nil
		if !reflect.DeepEqual(d, cd) || rec.Token != compact.Token || rec.Prob != compact.Prob || rng != rng2 || gen != gen2 {
			t.Errorf("%+v: compact draw %+v, recorded %+v", s, cd, d)
		}
		if got := rec.Draw.Order[rec.Draw.Index]; got != rec.Token || !(d.Lo <= d.Target && d.Target <= d.Hi) {
			t.Errorf("%+v: the draw's interval [%v, %v) of %v, target %v, at %d", s, d.Lo, d.Hi, d.Total, d.Target, got)
		}
		if s.Mode == sampler.HF {
			if rec.Note == "" || gen != (llamacpp.State{}) || rng == sampler.NewRNG(s.Seed) {
				t.Errorf("hf: note %q, llama.cpp state %+v, xorshift %v", rec.Note, gen, rng)
			}
			continue
		}
		// Step after step: the generators (and mirostat's mu) carry over
		// as in one chain.
		ref, _ := llamacpp.New(c.Llama)
		g := llamacpp.State{}
		for step := range 5 {
			res, err := ref.Sample(narrow(logits), []int32{1, 2, 1})
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.Choose(logits, history, &rng, &g, false)
			if err != nil {
				t.Fatal(err)
			}
			if got.Token != int(res.Token) || got.Draw.U != res.U || g != ref.State() {
				t.Errorf("%+v step %d: token %d u %v state %+v; llama.cpp %d %v %+v", s, step, got.Token, got.Draw.U, g, res.Token, res.U, ref.State())
			}
		}
	}
}

func narrow(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

// TestSetChain checks that SetChain and ChainName are each other's
// inverse on every kind of chain name, and that SetChain keeps the other
// settings.
func TestSetChain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     sampler.Mode
		sequence string
		back     string
		mirostat int
	}{
		{"chain", sampler.Chain, "", "chain", 0},
		{"RUNC", sampler.RunC, "", "runc", 0},
		{"hf", sampler.HF, "", "hf", 0},
		{"llama.cpp", sampler.LlamaCpp, "", "llama.cpp", 0},
		{"edskypmxt", sampler.LlamaCpp, "", "llama.cpp", 0}, // the default sequence is no sequence
		{"edkt", sampler.LlamaCpp, "edkt", "edkt", 0},
		{"Mirostat", sampler.LlamaCpp, "", "mirostat", 1},
		{"mirostat2", sampler.LlamaCpp, "", "mirostat2", 2},
	} {
		s := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.5, Seed: 3, LlamaSettings: sampler.LlamaSettings{Sequence: "kt", Mirostat: 2}}
		if err := compare.SetChain(&s, tc.name); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.Mode != tc.mode || s.Sequence != tc.sequence || s.Mirostat != tc.mirostat || s.Temperature != 0.5 || s.Seed != 3 {
			t.Errorf("%s: %+v", tc.name, s)
		}
		if got := compare.ChainName(s); got != tc.back {
			t.Errorf("%s: ChainName %q, want %q", tc.name, got, tc.back)
		}
	}
	for _, bad := range []string{"", "beam", "kq", strings.Repeat("k", 33)} {
		s := sampler.DefaultSettings()
		if err := compare.SetChain(&s, bad); err == nil || s != sampler.DefaultSettings() {
			t.Errorf("SetChain(%q): %v, %+v", bad, err, s)
		}
	}
}

// TestStageDefaults: a stage switched on by a setting given takes
// llama.cpp's defaults for the settings not given and still 0; a stage
// left off, or on before, takes none.
func TestStageDefaults(t *testing.T) {
	s := sampler.Settings{Mode: sampler.LlamaCpp, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, MirostatEta: 0.3, DryMultiplier: 0.8, DryAllowedLength: 0}}
	given := []string{"mirostat", "dry_multiplier", "dry_allowed_length"}
	compare.StageDefaults(&s, func(p string) bool { return slices.Contains(given, p) })
	if s.MirostatTau != 5 || s.MirostatEta != 0.3 || s.DryBase != 1.75 || s.DryAllowedLength != 0 || s.DryPenaltyLastN != 64 {
		t.Errorf("mirostat and DRY on: %+v", s)
	}
	// Switched on before, as in a share link's settings: they stay.
	before := sampler.Settings{Mode: sampler.LlamaCpp, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, DryMultiplier: 0.8, DryBase: 2}}
	kept := before
	compare.StageDefaults(&kept, func(p string) bool { return p == "dry_base" })
	if kept != before {
		t.Errorf("mirostat and DRY on before: %+v, want %+v", kept, before)
	}
	off := sampler.Settings{Mode: sampler.LlamaCpp}
	compare.StageDefaults(&off, func(string) bool { return false })
	if off != (sampler.Settings{Mode: sampler.LlamaCpp}) {
		t.Errorf("both off: %+v", off)
	}
}

// TestFollowLlama: DRY's and mirostat's settings follow the session's only
// where it runs the stage, and mirostat names a chain, so it never
// follows: the card's mirostat chain stays mirostat over a session without
// it, and nexttoken's chain drops what only llama.cpp has.
func TestFollowLlama(t *testing.T) {
	all := func(string) bool { return true }
	plain := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7}
	m := preset(t, compare.Mirostat2, func(c *compare.Chain) { c.Follow(plain, all) })
	if l := m.Llama; l.Mirostat != 2 || l.MirostatTau != 5 || l.MirostatEta != 0.1 || l.DryMultiplier != 0 {
		t.Errorf("mirostat2 over a session without it: %+v", l)
	}
	tuned := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7, LlamaSettings: sampler.LlamaSettings{Mirostat: 1, MirostatTau: 3, MirostatEta: 0.2, DryMultiplier: 0.5, DryBase: 2, DryAllowedLength: 3, DryPenaltyLastN: 16}}
	d := preset(t, compare.LlamaCpp, func(c *compare.Chain) { c.Follow(tuned, all) })
	if l := d.Llama; l.Mirostat != 0 || l.MirostatTau != 3 || l.MirostatEta != 0.2 || l.DryMultiplier != 0.5 || l.DryBase != 2 ||
		l.DryAllowedLength != 3 || l.DryPenaltyLastN != 16 {
		t.Errorf("llama.cpp over a session with mirostat and DRY: %+v", l)
	}
	ours := preset(t, compare.Ours, func(c *compare.Chain) { c.Follow(tuned, all) })
	if err := ours.Validate(); err != nil {
		t.Errorf("chain over a llama.cpp session: %v", err)
	}
}

// TestVocab checks stories260K's vocabulary as llama.cpp's DRY reads it.
func TestVocab(t *testing.T) {
	m, err := models.Load("stories260K")
	if err != nil {
		t.Fatal(err)
	}
	v := compare.Vocab(m.Tokenizer)
	if v.Len() != 512 {
		t.Errorf("%d tokens", v.Len())
	}
	for id, want := range map[int32]string{0: "<unk>", 1: "<s>", 2: "</s>", 13: "\n", 61: ":"} {
		if got := v.Piece(id); got != want {
			t.Errorf("token %d (%q): %q, want %q", id, m.Tokenizer.Token(int(id)), got, want)
		}
	}
	for id := range int32(512) {
		if tok := m.Tokenizer.Token(int(id)); strings.HasPrefix(tok, " ") && len(tok) > 1 && v.Piece(id) != tok[1:] {
			t.Errorf("token %d (%q): %q, want it without its space", id, tok, v.Piece(id))
		}
	}
	ids := v.Tokenize("Lily")
	if got := m.Tokenizer.Decode(toInts(ids)); got != " Lily" || len(ids) == 0 || ids[0] == 1 {
		t.Errorf("Tokenize(Lily) = %v (%q), want the tokens of \" Lily\" without BOS", ids, got)
	}
}

func toInts(x []int32) []int {
	y := make([]int, len(x))
	for i, v := range x {
		y[i] = int(v)
	}
	return y
}
