package link_test

import (
	"errors"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/conversation"
	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// with returns Default changed by edit.
func with(edit func(s *session.Spec)) session.Spec {
	s := catalog.Default()
	edit(&s)
	return s
}

// llamaCpp and hf are llama.cpp's and Hugging Face's defaults as
// sampler.Settings, with seed 42: what a link naming the runtime starts
// from.
var (
	llamaCpp = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 42, LlamaSettings: sampler.LlamaSettings{MirostatTau: 5, MirostatEta: 0.1, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: 64}}
	hf       = sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, TopP: 1, RepetitionPenalty: 1, Seed: 42}
)

// runtime is s's settings changed by edit.
func runtime(s sampler.Settings, edit func(s *sampler.Settings)) session.Spec {
	return with(func(spec *session.Spec) {
		spec.Sampler = s
		edit(&spec.Sampler)
	})
}

// logits is a model=logits session with the default sampler.
func logits(vocab []string, l ...float64) session.Spec {
	return session.Spec{Model: session.LogitsModel, Vocab: vocab, Logits: l, Sampler: sampler.DefaultSettings()}
}

var parseTests = []struct {
	query string
	want  session.Spec // when err is ""
	err   string
}{
	{query: "", want: catalog.Default()},
	{query: `model=stories260K&chat=[{"role":"system","content":"Be brief."},{"role":"user","content":"a%26b%3Dc%2Bd %252C,\u0000\t😀%23"}]`,
		want: with(func(s *session.Spec) {
			s.Model, s.Prompt = "stories260K", ""
			s.Chat = &session.Chat{Messages: []conversation.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "a&b=c+d %2C,\x00\t😀#"}}, GenerationPrompt: true}
		})},
	{query: `chat=[]&generation_prompt=0`, want: with(func(s *session.Spec) { s.Prompt, s.Chat = "", &session.Chat{} })},
	{query: "model=toy&prompt=The+cat+sat&steps=3", want: with(func(s *session.Spec) { s.Prompt, s.Steps = "The cat sat", 3 })},
	{query: "model=stories260K&prompt=&steps=4096", want: with(func(s *session.Spec) { s.Model, s.Prompt, s.Steps = "stories260K", "", 4096 })},
	{query: "model=STORIES260k", want: with(func(s *session.Spec) { s.Model, s.Prompt = "stories260K", "Once upon a time" })},
	{query: "prompt=%C3%A9t%C3%A9%0A", want: with(func(s *session.Spec) { s.Prompt = "été\n" })},
	{query: "temperature=0.8&top_k=40&top_p=0.9&min_p=0.05&repetition_penalty=1.3&seed=9007199254740991",
		want: with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.Chain, Temperature: 0.8, TopK: 40, TopP: 0.9, MinP: 0.05,
				RepetitionPenalty: 1.3, Seed: 1<<53 - 1}
		})},
	{query: "sampler=RunC&temperature=1e-3&top_p=1&repetition_penalty=0&seed=1", want: with(func(s *session.Spec) {
		s.Sampler = sampler.Settings{Mode: sampler.RunC, Temperature: 0.001, TopP: 1, Seed: 1}
	})},
	// A runtime named starts from its defaults for every setting not given.
	{query: "sampler=llama.cpp&temperature=0.8&top_k=40&top_p=0.95&min_p=0.05&seed=5",
		want: runtime(llamaCpp, func(s *sampler.Settings) { s.Seed = 5 })},
	{query: "sampler=llama.cpp", want: runtime(llamaCpp, func(*sampler.Settings) {})},
	{query: "sampler=llama.cpp&temperature=0", want: runtime(llamaCpp, func(s *sampler.Settings) { s.Temperature = 0 })}, // llama.cpp's greedy
	{query: "sampler=llama.cpp&top_k=10", want: runtime(llamaCpp, func(s *sampler.Settings) { s.TopK = 10 })},
	{query: "sampler=llama.cpp&top_p=0&mirostat_tau=0", want: runtime(llamaCpp, func(s *sampler.Settings) { s.TopP, s.MirostatTau = 0, 0 })},
	{query: "Sampler=HF&temperature=1.2&top_k=50&repetition_penalty=1.1",
		want: runtime(hf, func(s *sampler.Settings) { s.Temperature, s.RepetitionPenalty = 1.2, 1.1 })},
	{query: "sampler=hf", want: runtime(hf, func(*sampler.Settings) {})},
	{query: "sampler=hf&temperature=0.7", want: runtime(hf, func(s *sampler.Settings) { s.Temperature = 0.7 })},
	{query: "sampler=hf&top_p=0", want: runtime(hf, func(s *sampler.Settings) { s.TopP = 0 })},
	{query: "seed=7&sampler=hf", want: runtime(hf, func(s *sampler.Settings) { s.Seed = 7 })},
	// llama.cpp's own chains, and its stages switched on with its defaults
	// for their settings not given.
	{query: "sampler=Mirostat2", want: runtime(llamaCpp, func(s *sampler.Settings) { s.Mirostat = 2 })},
	{query: "sampler=mirostat&mirostat=2", want: runtime(llamaCpp, func(s *sampler.Settings) { s.Mirostat = 2 })},
	{query: "sampler=llama.cpp&temperature=1&mirostat=1&mirostat_tau=3", want: runtime(llamaCpp, func(s *sampler.Settings) {
		s.Temperature, s.Mirostat, s.MirostatTau = 1, 1, 3
	})},
	{query: "sampler=edkt&temperature=0.8&top_k=40&dry_multiplier=0.8&dry_allowed_length=0", want: runtime(llamaCpp, func(s *sampler.Settings) {
		s.Sequence, s.DryMultiplier, s.DryAllowedLength = "edkt", 0.8, 0
	})},
	{query: "sampler=runc&temperature=1", want: with(func(s *session.Spec) { s.Sampler.Mode, s.Sampler.Temperature = sampler.RunC, 1 })},
	{query: "model=stories260K&ignore_eos=1&steps=400", want: with(func(s *session.Spec) {
		s.Model, s.Prompt, s.Steps, s.Sampler.IgnoreEOS = "stories260K", "Once upon a time", 400, true
	})},
	{query: "IGNORE_EOS=0", want: catalog.Default()},
	{query: "model=logits&logits=1,2", want: logits([]string{"0", "1"}, 1, 2)},
	{query: "logits=-2.1,0.3,-inf&vocab=The,cat,sat&steps=1", want: func() session.Spec {
		s := logits([]string{"The", "cat", "sat"}, -2.1, 0.3, math.Inf(-1))
		s.Steps = 1
		return s
	}()},
	{query: "vocab=%E2%96%81a,b&logits=-Infinity,0x1p-2", want: logits([]string{"▁a", "b"}, math.Inf(-1), 0.25)},

	{query: "steps=1&steps=2", err: "steps: given more than once"},
	{query: "steps=x&b=1&a=1", err: `steps: "x" is not a whole number`},
	{query: "model=gpt2", err: `model: "gpt2" is not one of logits, toy, stories260K`},
	{query: "model=", err: `model: "" is not one of logits, toy, stories260K`},
	{query: "model=logits&vocab=a&steps=1", err: "vocab: 1 tokens for 6 logits"},
	{query: "model=toy&logits=1", err: "logits: goes with model=logits, not model=toy"},
	{query: "vocab=a", err: "vocab: goes with model=logits, not model=toy"},
	{query: "logits=1&prompt=a", err: "prompt: model=logits has no prompt"},
	{query: `chat=x`, err: `chat: not a JSON list of messages, [{"role":"user","content":"Hello"}]`},
	{query: `chat=[{"role":"user","content":"Hi"},"x"]`, err: `chat: not a JSON list of messages, [{"role":"user","content":"Hello"}]`},
	{query: `chat=[{"role":"user","content":"Hi"}]x`, err: `chat: not a JSON list of messages, [{"role":"user","content":"Hello"}]`},
	{query: `chat=[{"role":"the user","content":"Hi"}]`, err: `chat: message 1: not a message: the role "the user" has white space or a control character`},
	{query: `chat=[{"role":"user","content":"Hi"}]&prompt=Hi`, err: "chat: goes without prompt=: a session has a prompt or a chat"},
	{query: `chat=[]&model=logits`, err: "chat: model=logits has no chat"},
	{query: "generation_prompt=0", err: "generation_prompt: goes with chat="},
	{query: `chat=[]&generation_prompt=2`, err: `generation_prompt: "2" is not 0 or 1`},
	{query: "chat=[" + strings.Repeat(`{"role":"user","content":""},`, 64) + `{"role":"user","content":""}]`, err: "chat: 65 messages, more than 64"},
	{query: "logits=1&steps=2", err: `steps: "2" is outside [0, 1]`},
	{query: "logits=1,nan", err: `logits: token 1: "nan" is neither a finite number nor -inf`},
	{query: "logits=inf", err: `logits: token 0: "inf" is neither a finite number nor -inf`},
	{query: "logits=-1e999", err: `logits: token 0: "-1e999" is neither a finite number nor -inf`},
	{query: "logits=1,,2", err: `logits: token 1: "" is neither a finite number nor -inf`},
	{query: "logits=1+", err: `logits: token 0: "1 " is neither a finite number nor -inf`},
	{query: "logits=-inf,-inf", err: "logits: every logit is -inf, so no token can be chosen"},
	{query: "logits=" + strings.Repeat("0,", 1024) + "0", err: "logits: 1025 entries, more than 1024"},
	{query: "logits=" + strings.Repeat("0", 64<<10+1), err: "logits: 65537 bytes, more than 65536"},
	{query: "logits=1,2&vocab=a", err: "vocab: 1 tokens for 2 logits"},
	{query: "logits=1,2&vocab=a,", err: "vocab: token 1 is empty"},
	{query: "logits=1,2&vocab=a,a", err: `vocab: tokens 0 and 1 are both "a"`},
	{query: "logits=1,2&vocab=a,b+c", err: `vocab: token 1, "b c", contains white space`},
	{query: "logits=1&vocab=%FF", err: `vocab: token 0, "\xff", is not valid UTF-8`},
	{query: "prompt=" + strings.Repeat("a", 4097), err: "prompt: 4097 bytes, more than 4096"},
	{query: "prompt=%FF", err: "prompt: not valid UTF-8"},
	{query: "steps=-1", err: `steps: "-1" is outside [0, 4096]`},
	{query: "steps=4097", err: `steps: "4097" is outside [0, 4096]`},
	{query: "steps=1.5", err: `steps: "1.5" is not a whole number`},
	{query: "steps=", err: `steps: "" is not a whole number`},
	{query: "steps=99999999999999999999", err: `steps: "99999999999999999999" is out of range`},
	{query: "sampler=greedy", err: `sampler: "greedy" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf, nor llama.cpp letters such as edkt`},
	{query: "mirostat=2", err: "mirostat: mirostat is llama.cpp's: it must be 0 in chain mode, not 2"},
	{query: "sampler=llama.cpp&mirostat=3", err: `mirostat: "3" is not a whole number from 0 to 2`},
	{query: "sampler=hf&temperature=1&dry_multiplier=0.8", err: "dry_multiplier: dry_multiplier is llama.cpp's: it must be 0 in hf mode, not 0.8"},
	{query: "sampler=llama.cpp&dry_multiplier=0.8&dry_base=0.5", err: "sampler: dry_base: 0.5 is below 1, which would switch DRY off (llama.cpp's default is 1.75)"},
	{query: "sampler=ekq", err: `sampler: "ekq" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf, nor llama.cpp letters such as edkt`},
	{query: "ignore_eos=true", err: `ignore_eos: "true" is not 0 or 1`},
	{query: "temperature=abc", err: `temperature: "abc" is not a number from 0 to 100`},
	{query: "temperature=NaN", err: `temperature: "NaN" is not a number from 0 to 100`},
	{query: "temperature=Inf", err: `temperature: "Inf" is not a number from 0 to 100`},
	{query: "temperature=1e999", err: `temperature: "1e999" is not a number from 0 to 100`},
	{query: "temperature=-1", err: `temperature: "-1" is not a number from 0 to 100`},
	{query: "temperature=100.5", err: `temperature: "100.5" is not a number from 0 to 100`},
	{query: "temperature=", err: `temperature: "" is not a number from 0 to 100`},
	{query: "top_k=-1", err: `top_k: "-1" is not a whole number from 0 to 1,048,576`},
	{query: "top_k=2.0", err: `top_k: "2.0" is not a whole number from 0 to 1,048,576`},
	{query: "top_k=1048577", err: `top_k: "1048577" is not a whole number from 0 to 1,048,576`},
	{query: "top_k=99999999999999999999", err: `top_k: "99999999999999999999" is not a whole number from 0 to 1,048,576`},
	{query: "top_p=1.5", err: `top_p: "1.5" is not a number from 0 to 1`},
	{query: "top_p=-0.1", err: `top_p: "-0.1" is not a number from 0 to 1`},
	{query: "min_p=2", err: `min_p: "2" is not a number from 0 to 1`},
	{query: "repetition_penalty=-1", err: `repetition_penalty: "-1" is not a number from 0 to 100`},
	{query: "repetition_penalty=inf", err: `repetition_penalty: "inf" is not a number from 0 to 100`},
	{query: "seed=0", err: `seed: "0" is not a whole number from 1 to 9,007,199,254,740,991`},
	{query: "seed=-1", err: `seed: "-1" is not a whole number from 1 to 9,007,199,254,740,991`},
	{query: "seed=9007199254740992", err: `seed: "9007199254740992" is not a whole number from 1 to 9,007,199,254,740,991`},
	{query: "seed=18446744073709551615", err: `seed: "18446744073709551615" is not a whole number from 1 to 9,007,199,254,740,991`},
	{query: "sampler=hf&temperature=0", err: "sampler: hf mode: hf: temperature = 0, must be positive and finite (greedy decoding is do_sample=False, not temperature 0)"},
	{query: "sampler=llama.cpp&temperature=1&seed=4294967296", err: "sampler: chain llama.cpp: seed 4294967296 does not fit llama.cpp's 32 bits"},
	{query: "sampler=llama.cpp&seed=4294967295", err: "sampler: llama.cpp mode: seed: 4294967295 is LLAMA_DEFAULT_SEED, which llama.cpp replaces with a random seed"},
	{query: "sampler=runc&top_k=3", err: "top_k: run.c has no top-k, so top_k must be 0 in run.c mode, not 3"},
	{query: "min_p=0.1&sampler=runc", err: "min_p: run.c has no min-p, so min_p must be 0 in run.c mode, not 0.1"},
	{query: "sampler=runc&repetition_penalty=1.5", err: "repetition_penalty: run.c has no repetition penalty, so repetition_penalty must be 0 or 1 in run.c mode, not 1.5"},
	{query: "top_p=2&temperature=-1", err: `temperature: "-1" is not a number from 0 to 100`},
	{query: "temperature=" + strings.Repeat("9", 50) + "x", err: `temperature: "9999999999999999999999999999999999999999"… is not a number from 0 to 100`},
	{query: "prompt=" + strings.Repeat("é", 2049), err: "prompt: 4098 bytes, more than 4096"},
	{query: "model=" + strings.Repeat("é", 30), err: `model: "` + strings.Repeat("é", 20) + `"… is not one of logits, toy, stories260K`},
}

func TestParse(t *testing.T) {
	for _, c := range parseTests {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatalf("%.60s: %v", c.query, err)
		}
		got, err := link.Parse(q)
		if c.err != "" {
			var pe *link.ParamError
			if err == nil || err.Error() != c.err || !errors.As(err, &pe) || pe.Value != q.Get(pe.Param) {
				t.Errorf("Parse(%.60q) = %v, want *ParamError %q", c.query, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%.60q) = %+v, %v, want %+v", c.query, got, err, c.want)
		}
	}
}

// The 1e999 in Parse's documentation is an error because it overflows; a
// number too small for a float64 is 0, as ParseFloat reads it.
func TestParseUnderflow(t *testing.T) {
	got, err := link.Parse(url.Values{"top_p": {"1e-999"}})
	if err != nil || got.Sampler.TopP != 0 {
		t.Errorf("top_p=1e-999: %v, %v, want 0", got.Sampler.TopP, err)
	}
}

// The models Parse knows are the embedded ones, LogitsModel and models
// opened from files, by their references; a malformed reference is blamed
// on model=.
func TestModels(t *testing.T) {
	const ref = "file:0123456789abcdef:60816028:stories15M.bin + tokenizer.bin"
	if s, err := link.Parse(url.Values{"model": {ref}}); err != nil || s.Model != ref || s.Prompt != "" || s.Sampler != sampler.DefaultSettings() {
		t.Errorf("model=%s: %+v, %v", ref, s, err)
	}
	roundTrip(t, with(func(s *session.Spec) { s.Model, s.Prompt, s.Steps = ref, "Hello", 2 }))
	fileSession := link.State{Spec: with(func(s *session.Spec) { s.Model, s.Prompt, s.Steps = ref, "Hello", 2 })}
	if f, err := link.Encode(fileSession); err != nil {
		t.Errorf("Encode: %v", err)
	} else if back, err := link.Decode(f); err != nil || !reflect.DeepEqual(back, fileSession) {
		t.Errorf("Decode(Encode(%+v)) = %+v, %v", fileSession, back, err)
	}
	if _, err := link.Parse(url.Values{"model": {"file:0123:1:x"}}); err == nil || !strings.HasPrefix(err.Error(), "model: ") || !strings.Contains(err.Error(), "16 lower-case hex digits") {
		t.Errorf("a malformed reference: %v", err)
	}
	for _, name := range append(slices.Clone(models.Names), session.LogitsModel) {
		q := url.Values{"model": {name}}
		if name == session.LogitsModel {
			q.Set("logits", "0")
		}
		if s, err := link.Parse(q); err != nil || s.Model != name {
			t.Errorf("model=%s: %q, %v", name, s.Model, err)
		}
	}
}

// roundTrip checks that Query writes spec, which has no forced tokens,
// edits or changes, so that Parse reads it back, through an encoded URL.
func roundTrip(t *testing.T, spec session.Spec) {
	t.Helper()
	q, lossy := link.Query(spec)
	back, err := link.ParseQuery(q.Encode())
	if err != nil {
		t.Fatalf("%+v: Query gave %q: %v", spec, q.Encode(), err)
	}
	got, err := link.Parse(back)
	if lossy || err != nil || !reflect.DeepEqual(got, spec) {
		t.Fatalf("%+v: Query gave %q (lossy %v), Parse gave %+v, %v", spec, q.Encode(), lossy, got, err)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range parseTests {
		if c.err == "" {
			roundTrip(t, c.want)
		}
	}
	for _, spec := range []session.Spec{
		with(func(s *session.Spec) { s.Prompt = "a&b=c+d %2C,\x00\t😀" }),
		with(func(s *session.Spec) {
			s.Model, s.Prompt, s.Steps = "stories260K", "Once upon a time", 64
			s.Sampler = sampler.Settings{Mode: sampler.Chain, Temperature: 1.0 / 3, TopK: 7, TopP: 0.3,
				MinP: 5e-324, RepetitionPenalty: 0.5, Seed: 2}
		}),
		with(func(s *session.Spec) {
			s.Sampler.Temperature, s.Sampler.TopP = 100, math.SmallestNonzeroFloat64
			s.Sampler.TopK, s.Sampler.Seed = 1<<20, 1<<53-1
		}),
		logits([]string{"b"}, math.Copysign(0, -1)),
		logits([]string{"1", "0"}, 1e300, -1e-300),
		with(func(s *session.Spec) { s.Sampler.TopK, s.Sampler.MinP = 40, 0.1 }), // greedy, with filters
		with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 5}
		}),
		with(func(s *session.Spec) { s.Sampler.Mode, s.Sampler.TopK = sampler.LlamaCpp, 40 }), // llama.cpp greedy, with a filter
		with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, RepetitionPenalty: 1, Seed: 1<<32 + 1}
		}),
	} {
		roundTrip(t, spec)
	}
}

func TestQuery(t *testing.T) {
	for _, c := range []struct {
		spec  session.Spec
		query string
		lossy bool
	}{
		{catalog.Default(), "", false},
		{with(func(s *session.Spec) { s.Sampler.Mode = "" }), "", false},
		{with(func(s *session.Spec) { s.Model, s.Steps, s.Sampler.Temperature = "stories260K", 5, 0.7 }),
			"model=stories260K&prompt=The+cat&steps=5&temperature=0.7", false},
		{with(func(s *session.Spec) { s.Model, s.Prompt = "stories260K", "Once upon a time" }),
			"model=stories260K&prompt=Once+upon+a+time", false},
		{with(func(s *session.Spec) { s.Forced = []session.Force{{Step: 0, Token: 1}} }), "", true},
		{with(func(s *session.Spec) { s.Edits = []session.Edit{{Step: 0, Token: 1, Logit: math.Inf(-1)}} }), "", true},
		{with(func(s *session.Spec) {
			s.Steps, s.Changes = 2, []session.Change{{Step: 1, Sampler: sampler.Settings{Temperature: 1, Seed: 3}}}
		}), "steps=2", true},
		{func() session.Spec {
			s := logits([]string{"0", "1"}, math.Inf(-1), 2.5)
			s.Prompt = "ignored"
			return s
		}(), "logits=-inf%2C2.5&model=logits", false},
		// A runtime's settings leave out what equals its defaults, which
		// Parse fills in after sampler=.
		{runtime(llamaCpp, func(*sampler.Settings) {}), "sampler=llama.cpp", false},
		{with(func(s *session.Spec) {
			s.Prompt, s.Chat = "", &session.Chat{Messages: []conversation.Message{{Role: "user", Content: "Hi & bye"}}, GenerationPrompt: true}
		}), "chat=%5B%7B%22role%22%3A%22user%22%2C%22content%22%3A%22Hi+%5Cu0026+bye%22%7D%5D", false},
		{with(func(s *session.Spec) { s.Model, s.Prompt, s.Chat = "stories260K", "", &session.Chat{} }),
			"chat=%5B%5D&generation_prompt=0&model=stories260K", false},
		{runtime(llamaCpp, func(s *sampler.Settings) { s.Mirostat, s.Seed = 2, 7 }), "mirostat=2&sampler=llama.cpp&seed=7", false},
		{runtime(hf, func(s *sampler.Settings) { s.Temperature = 0.7 }), "sampler=hf&temperature=0.7", false},
		{runtime(hf, func(s *sampler.Settings) { s.TopP = 0 }), "sampler=hf&top_p=0", false},
		// A llama.cpp session from before its stages' settings showed.
		{with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, Seed: 42}
		}), "dry_allowed_length=0&dry_base=0&dry_penalty_last_n=0&mirostat_eta=0&mirostat_tau=0&repetition_penalty=0&sampler=llama.cpp", false},
		// Temperature 1 over a filter is what Parse fills in; 0 is not.
		{with(func(s *session.Spec) { s.Sampler.Temperature, s.Sampler.TopK = 1, 40 }), "top_k=40", false},
		{with(func(s *session.Spec) { s.Sampler.TopK = 40 }), "temperature=0&top_k=40", false},
		// ignore_eos=1 is step 0's; a change that switches it is lossy.
		{with(func(s *session.Spec) { s.Sampler.IgnoreEOS = true }), "ignore_eos=1", false},
		{with(func(s *session.Spec) {
			s.Sampler.IgnoreEOS, s.Steps = true, 2
			s.Changes = []session.Change{{Step: 1, Sampler: sampler.DefaultSettings()}}
		}), "ignore_eos=1&steps=2", true},
		{with(func(s *session.Spec) {
			ignoring := sampler.DefaultSettings()
			ignoring.IgnoreEOS = true
			s.Steps, s.Changes = 2, []session.Change{{Step: 1, Sampler: ignoring}}
		}), "steps=2", true},
	} {
		q, lossy := link.Query(c.spec)
		if got := q.Encode(); got != c.query || lossy != c.lossy {
			t.Errorf("Query(%+v) = %q, %v, want %q, %v", c.spec, got, lossy, c.query, c.lossy)
		}
	}
}

// FuzzParse reads raw queries as the playground does, with ParseQuery
// and Merge: every problem is a *ParamError, and every session read is
// written back by Query as it was.
func FuzzParse(f *testing.F) {
	for _, c := range parseTests {
		f.Add(c.query)
	}
	for _, q := range []string{"utm_source=x&Temperature=0.5&at=1&steps=2&view=kv", "prompt=100%&steps=1",
		"top_p=0.9", "top_k=3&temperature=0", "model=logits&at=1&steps=1", "embed=1&theme=dark&a;b=c",
		"compare=chain,HF&compare_own=1", "compare=kt,edskypmxt&view=compare",
		"sampler=hf&top_p=1&seed=9", "sampler=mirostat&mirostat_eta=0", "sampler=kt&dry_multiplier=1&dry_base=0",
		"sampler=runc&top_k=0&repetition_penalty=1", "sampler=llama.cpp&temperature=0&top_k=1", "sampler=edskypmxt&mirostat=2",
		"ignore_eos=1&sampler=hf"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var pe *link.ParamError
		q, err := link.ParseQuery(raw)
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("ParseQuery(%q): %v is not a *ParamError", raw, err)
		}
		s, err := link.Merge(q, "")
		switch {
		case err == nil:
			if !same(s, link.State{Spec: s.Spec}) {
				t.Fatalf("Merge(%q) = %+v: a page's part without a share link", raw, s)
			}
			roundTrip(t, s.Spec)
		case !errors.As(err, &pe):
			t.Fatalf("Merge(%q): %v is not a *ParamError", raw, err)
		}
	})
}
