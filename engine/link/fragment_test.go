package link_test

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/conversation"
	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// worked is the worked example, one step on, as the softmax view shows it.
func worked() link.State {
	s := logits([]string{"The", "cat", "sat", "on", "the", "mat"}, -2.1, 0.3, 3.1, 0.8, 0.1, -0.5)
	s.Steps = 1
	return link.State{Spec: s, Page: link.Page{View: "softmax"}}
}

// stories is a sampled stories260K session with three forced tokens and
// five edits, one of them a mask.
func stories() link.State {
	return link.State{Page: link.Page{View: "tokens"}, Spec: session.Spec{
		Model: "stories260K", Prompt: "Once upon a time", Steps: 64,
		Sampler: sampler.Settings{Mode: sampler.Chain, Temperature: 0.8, TopK: 40, TopP: 0.9, MinP: 0.05,
			RepetitionPenalty: 1.1, Seed: 7},
		Forced: []session.Force{{Step: 5, Token: 336}, {Step: 12, Token: 42}, {Step: 30, Token: 400}},
		Edits: []session.Edit{{Step: 3, Token: 100, Logit: 12.5}, {Step: 7, Token: 336, Logit: math.Inf(-1)},
			{Step: 12, Token: 42, Logit: 15}, {Step: 20, Token: 411, Logit: 0}, {Step: 40, Token: 7, Logit: 9.75}},
	}}
}

// changed is stories() with its settings changed three times: cooler at
// step 10, run.c with another seed at step 20, greedy from step 40.
func changed() link.State {
	s := stories()
	s.Spec.Changes = []session.Change{
		{Step: 10, Sampler: sampler.Settings{Mode: sampler.Chain, Temperature: 0.5, TopK: 40, TopP: 0.9, MinP: 0.05,
			RepetitionPenalty: 1.1, Seed: 7}},
		{Step: 20, Sampler: sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.9, Seed: 8}},
		{Step: 40, Sampler: sampler.DefaultSettings()},
	}
	return s
}

// runtimes is stories() in llama.cpp mode, then Hugging Face's from step 8
// and llama.cpp greedy from step 16.
func runtimes() link.State {
	s := stories()
	s.Spec.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 5}
	s.Spec.Changes = []session.Change{
		{Step: 8, Sampler: sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, RepetitionPenalty: 1.2, Seed: 5}},
		{Step: 16, Sampler: sampler.Settings{Mode: sampler.LlamaCpp, TopK: 40, RepetitionPenalty: 1, Seed: 5}},
	}
	return s
}

// wide is a logits session of n tokens: stories260K's vocabulary without
// its spaces, and logits typed to one decimal.
func wide(t testing.TB, n int) link.State {
	m, err := models.Load("stories260K")
	if err != nil {
		t.Fatal(err)
	}
	var vocab []string
	seen := map[string]bool{}
	for id := 259; len(vocab) < n; id++ { // after the specials and 256 byte tokens
		w := strings.TrimSpace(m.Tokenizer.Token(id))
		if w != "" && !seen[w] && !strings.ContainsAny(w, " \t\n") {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	l := make([]float64, n)
	for i := range l {
		l[i] = math.Round(30*math.Sin(1.7*float64(i))) / 10
	}
	s := logits(vocab, l...)
	s.Steps = 1
	return link.State{Spec: s, Page: link.Page{View: "all"}}
}

// shareTests are States that Decode(Encode(s)) gives back as they are.
func shareTests(t testing.TB) []link.State {
	return []link.State{
		{Spec: catalog.Default()},
		{Spec: catalog.Default(), Page: link.Page{View: "all"}},
		worked(),
		stories(),
		wide(t, 200),
		changed(),
		runtimes(),
		func() link.State { // on display at a past step
			s := changed()
			s.Page.At = 64
			return s
		}(),
		{Spec: with(func(s *session.Spec) { s.Steps = 1 }), Page: link.Page{At: 1}},
		func() link.State { // compressed, with a change
			s := wide(t, 200)
			s.Spec.Changes = []session.Change{{Step: 1, Sampler: sampler.Settings{Mode: sampler.RunC, Temperature: 100, Seed: 1<<53 - 1}}}
			return s
		}(),
		{Spec: with(func(s *session.Spec) {
			s.Model, s.Prompt, s.Steps = "stories260K", "a&b=c+d %2C,\x00\t😀#", 4096
			s.Sampler = sampler.Settings{Mode: sampler.RunC, Temperature: 100, TopP: math.SmallestNonzeroFloat64,
				Seed: 1<<53 - 1}
		}), Page: link.Page{View: strings.Repeat("z", 32)}},
		{Spec: with(func(s *session.Spec) {
			s.Prompt = ""
			s.Sampler = sampler.Settings{Mode: sampler.Chain, Temperature: 1.0 / 3, TopK: 1 << 20, TopP: 1, MinP: 5e-324,
				RepetitionPenalty: 100, Seed: 1}
			s.Forced = []session.Force{{Step: 4096, Token: math.MaxInt}, {Step: 0, Token: 0}}
			s.Edits = []session.Edit{{Step: 4096, Token: 1e9, Logit: -math.MaxFloat64}, {Step: 0, Token: 0, Logit: 1e-320}}
		})},
		{Spec: logits([]string{"a,b", "€", "\x00", "<0x0A>"}, math.Copysign(0, -1), 1e300, math.Inf(-1), -1e-300)},
		{Spec: worked().Spec, Page: link.Page{View: "compare", Records: card("chain", "hf", 0)}},
		{Spec: catalog.Default(), Page: link.Page{Records: card("", "", 1)}},
		func() link.State { // every section
			s := changed()
			s.Page.At, s.Page.Records = 3, card("edskypmxt", strings.Repeat("k", 32), 1)
			return s
		}(),
		{Spec: func() session.Spec {
			s := logits(strings.Split("The,cat,sat,on,the,mat", ","), -2.1, 0.3, 3.1, 0.8, 0.1, -0.5)
			s.Forced = []session.Force{{Step: 0, Token: 5}}
			s.Edits = []session.Edit{{Step: 0, Token: 2, Logit: math.Inf(-1)}, {Step: 1, Token: 0, Logit: 2}}
			return s
		}()},
		// llama.cpp's own settings, in the extras: mirostat from step 0, then
		// a chain of the reader's own letters with DRY, then llama.cpp's
		// default chain again.
		{Spec: with(func(s *session.Spec) {
			s.Model, s.Prompt, s.Steps = "stories260K", "Once upon a time", 40
			s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, MirostatTau: 3, MirostatEta: 0.25}}
			s.Changes = []session.Change{
				{Step: 10, Sampler: sampler.Settings{Mode: sampler.HF, Temperature: 1, Seed: 7}},
				{Step: 20, Sampler: sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, Seed: 7, LlamaSettings: sampler.LlamaSettings{Sequence: "edkt", DryMultiplier: 0.8, DryBase: 1.75, DryAllowedLength: 0, DryPenaltyLastN: 1 << 20}}},
				{Step: 30, Sampler: sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, Seed: 7}},
			}
		}), Page: link.Page{Records: card("mirostat2", "llama.cpp", 0)}},
		{Spec: with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, Seed: 7, LlamaSettings: sampler.LlamaSettings{Sequence: strings.Repeat("t", 32)}}
		})},
		tree(),
		// llama.cpp's and Hugging Face's defaults as a runtime's link gives
		// them: mirostat's and DRY's settings shown while they are off.
		{Spec: with(func(s *session.Spec) { s.Sampler = llamaCpp }), Page: link.Page{View: "sampler"}},
		{Spec: with(func(s *session.Spec) {
			s.Sampler = hf
			s.Changes = []session.Change{{Step: 2, Sampler: llamaCpp}}
		})},
		// The end of text ignored by step 0's settings, then not from step
		// 4, again from step 8, and by a branch's change, beside the other
		// records.
		func() link.State {
			s := tree()
			s.Spec.Sampler.IgnoreEOS, s.Page.Records = true, card("", "", 1)
			stops, ignores := s.Spec.Sampler, s.Spec.Sampler
			stops.IgnoreEOS, stops.Temperature = false, 0.7
			s.Spec.Changes = []session.Change{{Step: 4, Sampler: stops}, {Step: 8, Sampler: ignores}}
			s.Spec.Branches[1].Changes[0].Sampler.IgnoreEOS = true
			return s
		}(),
		// The end of text ignored by a branch's change only.
		func() link.State {
			s := tree()
			s.Spec.Branches[1].Changes[0].Sampler.IgnoreEOS = true
			return s
		}(),
		// Records of the page's that no page knows yet, around the
		// playground's: carried as they are.
		{Spec: catalog.Default(), Page: link.Page{View: "kv", Records: []link.Record{
			{Tag: 1, Body: card("chain", "hf", 1)[0].Body}, {Tag: 2, Body: "\x00\x01"}, {Tag: 31}}}},
		{Spec: with(func(s *session.Spec) { // a chat
			s.Model, s.Prompt, s.Steps = "file:0123456789abcdef:9:chat.gguf", "", 3
			s.Chat = &session.Chat{Messages: []conversation.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "a&b=c+d %2C,\x00\t😀#"}, {Role: "assistant"}}, GenerationPrompt: true}
			s.Forced = []session.Force{{Step: 1, Token: 2}}
		})},
		{Spec: with(func(s *session.Spec) { s.Prompt, s.Chat = "", &session.Chat{} })}, // a chat of no messages, without the generation prompt
	}
}

// card is the page's record of the playground's compare card, as package
// play writes it: tag 1, then chain A and chain B (strings), own defaults
// (uint, 0 or 1).
func card(a, b string, own byte) []link.Record {
	body := append(binary.AppendUvarint(nil, uint64(len(a))), a...)
	body = append(binary.AppendUvarint(body, uint64(len(b))), b...)
	return []link.Record{{Tag: 1, Body: string(append(body, own))}}
}

// tree is a stories260K session with a generation tree: a branch forced at
// step 3, and one that leaves it at step 5 with a masked token and a
// change to llama.cpp's mirostat.
func tree() link.State {
	return link.State{Page: link.Page{View: "tree"}, Spec: with(func(s *session.Spec) {
		s.Model, s.Prompt, s.Steps = "stories260K", "Once upon a time", 12
		s.Sampler = sampler.Settings{Mode: sampler.Chain, Temperature: 0.9, TopK: 40, Seed: 7}
		s.Branches = []session.Branch{
			{From: 0, At: 3, Steps: 10, Forced: []session.Force{{Step: 3, Token: 300}}},
			{From: 1, At: 5, Steps: 8, Edits: []session.Edit{{Step: 5, Token: 20, Logit: math.Inf(-1)}},
				Changes: []session.Change{{Step: 6, Sampler: sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, MirostatTau: 3, MirostatEta: 0.25}}}}},
		}
	})}
}

// urlSafe reports whether f uses only characters a URL carries unescaped.
func urlSafe(f string) bool {
	return !strings.ContainsFunc(f, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_.", r))
	})
}

// same reports whether a and b are equal, telling −0 from 0.
func same(a, b link.State) bool {
	// fmt tells −0 from 0, which DeepEqual does not; it prints a chat's
	// address, not the chat.
	ca, cb := a.Spec.Chat, b.Spec.Chat
	a.Spec.Chat, b.Spec.Chat = nil, nil
	return reflect.DeepEqual(ca, cb) && reflect.DeepEqual(a, b) && fmt.Sprint(a) == fmt.Sprint(b)
}

func TestShareRoundTrip(t *testing.T) {
	for i, s := range shareTests(t) {
		f, err := link.Encode(s)
		if err != nil {
			t.Errorf("%d: Encode: %v", i, err)
			continue
		}
		if !urlSafe(f) || !strings.HasPrefix(f, "s1.") {
			t.Errorf("%d: Encode wrote %q", i, f)
		}
		if got, err := link.Decode(f); err != nil || !same(got, s) {
			t.Errorf("%d: Decode(Encode(%+v)) = %+v, %v", i, s, got, err)
		}
	}
}

// recorded are share links made by earlier pages, with the States of
// shareTests they hold: each must open as it did, and Encode must write
// it byte for byte as it did.
var recorded = []struct {
	test     int // in shareTests
	fragment string
}{
	{0, "s1.AAN0b3kHVGhlIGNhdAAABWNoYWluAAAAAAAAAAIAKgAAAA"},
	{2, "s1.AAZsb2dpdHMAB3NvZnRtYXgBBWNoYWluAAAAAAAAAAIAKgYDVGhlA2NhdANzYXQCb24DdGhlA21hdCsBBgE-ARABAgELAQAA"},
	{5, "s1.AgtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lBnRva2Vuc0AFY2hhaW4QASgSAQoDFgEHAAMF0AIMKh6QAwUDZPoBAQfQAgPODwwqHgAUmwMAACgHng8DAwoFY2hhaW4KASgSAQoDFgEHFARydW5jAgAAEgEAAAAACCgFY2hhaW4AAAAAAAAAAgAq"},
	{6, "s1.AgtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lBnRva2Vuc0AJbGxhbWEuY3BwEAEovgEDCgMCAAUAAwXQAgwqHpADBQNk-gEBB9ACA84PDCoeABSbAwAAKAeeDwMCCAJoZgIAMgAAAAAYAQUQCWxsYW1hLmNwcAAAKAAAAAACAAU"},
	{7, "s1.BgtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lBnRva2Vuc0AFY2hhaW4QASgSAQoDFgEHAAMF0AIMKh6QAwUDZPoBAQfQAgPODwwqHgAUmwMAACgHng8DAwoFY2hhaW4KASgSAQoDFgEHFARydW5jAgAAEgEAAAAACCgFY2hhaW4AAAAAAAAAAgAqQA"},
	{8, "s1.BAN0b3kHVGhlIGNhdAABBWNoYWluAAAAAAAAAAIAKgAAAAE"},
	{10, "s1.AAtzdG9yaWVzMjYwSxNhJmI9YytkICUyQywACfCfmIAjIHp6enp6enp6enp6enp6enp6enp6enp6enp6enp6enp6gCAEcnVuYwIEAAqHBQAAAAD_________DwAAAA"},
	{11, "s1.AAN0b3kAAAAFY2hhaW6q1YLUxOnrCx-AgEACAAqHBQIEAQACgCD__________38AAAKAIICU69wD67z98o_77j_IBAAAAv8E"},
	{12, "s1.AAZsb2dpdHMAAAAFY2hhaW4AAAAAAAAAAgAqBANhLGID4oKsAQAGPDB4MEE-AQAC2AQDzg8D1wQAAA"},
	{19, "s1.GAtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lBHRyZWUMBWNoYWluEgEoAAAAAAAABwAAAAEhNgIAAwoBA6wCAAABBQgAAQUUA84PAQYJbGxhbWEuY3BwAgAAAAAAAAAABwACBgAyAwAAAAAAAA"},
	{22, "s1.GgtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lBHRyZWUMBWNoYWluEgEoAAAAAAAABwAAAAIEBWNoYWluDgEoAAAAAAAABwgFY2hhaW4SASgAAAAAAAAHAwEDAAABITYCAAMKAQOsAgAAAQUIAAEFFAPODwEGCWxsYW1hLmNwcAIAAAAAAAAAAAcAAgYAMgMAAAAAAAAiBAMAAgM"}, // the end of text ignored, tag 34
	{23, "s1.GAtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lBHRyZWUMBWNoYWluEgEoAAAAAAAABwAAAAIhNgIAAwoBA6wCAAABBQgAAQUUA84PAQYJbGxhbWEuY3BwAgAAAAAAAAAABwACBgAyAwAAAAAAACICAQE"},
	// With the page's part: a view, a step on display, the playground's
	// compare card (tag 1).
	{1, "s1.AAN0b3kHVGhlIGNhdANhbGwABWNoYWluAAAAAAAAAAIAKgAAAA"},
	{13, "s1.CAZsb2dpdHMAB2NvbXBhcmUBBWNoYWluAAAAAAAAAAIAKgYDVGhlA2NhdANzYXQCb24DdGhlA21hdCsBBgE-ARABAgELAQAAAQEKBWNoYWluAmhmAA"},
	{14, "s1.CAN0b3kHVGhlIGNhdAAABWNoYWluAAAAAAAAAAIAKgAAAAEBAwAAAQ"},
	{15, "s1.DgtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lBnRva2Vuc0AFY2hhaW4QASgSAQoDFgEHAAMF0AIMKh6QAwUDZPoBAQfQAgPODwwqHgAUmwMAACgHng8DAwoFY2hhaW4KASgSAQoDFgEHFARydW5jAgAAEgEAAAAACCgFY2hhaW4AAAAAAAAAAgAqAwEBLAllZHNreXBteHQga2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2sB"},
	{17, "s1.GgtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lACgJbGxhbWEuY3BwAgAAAAAAAAAABwAAAAMKAmhmAgAAAAAAAAAABxQJbGxhbWEuY3BwEAEoAAAAAAAABx4JbGxhbWEuY3BwEAEAAAAAAAAABwIBFQltaXJvc3RhdDIJbGxhbWEuY3BwACAiAgAAAgYAMgMAAAAAAAACBGVka3QAAAAAABAB3gIDAICAQA"},
	{20, "s1.GAN0b3kHVGhlIGNhdAdzYW1wbGVyAAlsbGFtYS5jcHAQASi-AQMKAwIAKgAAAAEgDwEAAAAKAAIBAADeAgMCQA"},
	{25, "s1.GCFmaWxlOjAxMjM0NTY3ODlhYmNkZWY6OTpjaGF0LmdndWYAAAMFY2hhaW4AAAAAAAAAAgAqAAEBAgABIzcDBnN5c3RlbQlCZSBicmllZi4EdXNlchNhJmI9YytkICUyQywACfCfmIAjCWFzc2lzdGFudAAB"},
	{26, "s1.GAN0b3kAAAAFY2hhaW4AAAAAAAAAAgAqAAAAASMCAAA"},
}

func TestRecordedLinks(t *testing.T) {
	tests := shareTests(t)
	for _, c := range recorded {
		got, err := link.Decode(c.fragment)
		if err != nil || !same(got, tests[c.test]) {
			t.Errorf("%d: Decode(%q) = %+v, %v, want %+v", c.test, c.fragment, got, err, tests[c.test])
		}
		if f, err := link.Encode(got); f != c.fragment || err != nil {
			t.Errorf("%d: Encode(Decode(%q)) = %q, %v", c.test, c.fragment, f, err)
		}
	}
}

// Share links of typical sessions stay far below the 2,000 characters that
// chat apps and documentation tools keep.
func TestShareLength(t *testing.T) {
	for _, c := range []struct {
		name  string
		state link.State
		most  int
	}{
		{"default toy session", link.State{Spec: catalog.Default()}, 60},
		{"worked example", worked(), 120},
		{"stories260K, 64 steps, 3 forced tokens, 5 edits", stories(), 150},
		{"the same with its settings changed three times", changed(), 200},
		{"200 hand-typed logits", wide(t, 200), 1200},
	} {
		f, err := link.Encode(c.state)
		if err != nil || len(f) > c.most {
			t.Errorf("%s: %d characters, want at most %d (%v)", c.name, len(f), c.most, err)
		}
		t.Logf("%s: %d characters", c.name, len(f))
	}
}

// Encode writes an equivalent State in the form Decode returns.
func TestEncodeNormalises(t *testing.T) {
	for _, c := range []struct{ in, want link.State }{
		{link.State{Spec: with(func(s *session.Spec) {
			s.Model, s.Sampler.Mode = "TOY", ""
			s.Forced, s.Edits = []session.Force{}, []session.Edit{}
		})}, link.State{Spec: catalog.Default()}},
		{link.State{Spec: func() session.Spec {
			s := logits(nil, 1, 2)
			s.Prompt = "ignored, as Query ignores it"
			return s
		}()}, link.State{Spec: logits([]string{"0", "1"}, 1, 2)}},
	} {
		f, err := link.Encode(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := link.Decode(f); err != nil || !same(got, c.want) {
			t.Errorf("Decode(Encode(%+v)) = %+v, %v, want %+v", c.in, got, err, c.want)
		}
	}
}

// hexVocab is n distinct tokens of size random hex digits, which compress
// poorly.
func hexVocab(n, size int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]string, n)
	for i := range v {
		var b strings.Builder
		fmt.Fprintf(&b, "%d:", i)
		for b.Len() < size {
			fmt.Fprintf(&b, "%x", r.Uint32())
		}
		v[i] = b.String()
	}
	return v
}

func TestEncodeErrors(t *testing.T) {
	for _, c := range []struct {
		state link.State
		err   string
	}{
		{link.State{}, `share link: model: "" is not one of logits, toy, stories260K`},
		{link.State{Spec: catalog.Default(), Page: link.Page{View: strings.Repeat("a", 33)}}, "share link: view: 33 bytes, more than 32"},
		{link.State{Spec: catalog.Default(), Page: link.Page{At: 4097}}, "share link: at: step 4097 is outside [1, 4096]"},
		{link.State{Spec: catalog.Default(), Page: link.Page{At: -1}}, "share link: at: step -1 is outside [1, 4096]"},
		{link.State{Spec: catalog.Default(), Page: link.Page{Records: []link.Record{{Tag: 0}}}}, "share link: page record 0: tag 0 is not above 0 and below 32"},
		{link.State{Spec: catalog.Default(), Page: link.Page{Records: []link.Record{{Tag: 32}}}}, "share link: page record 0: tag 32 is not above 0 and below 32"},
		{link.State{Spec: catalog.Default(), Page: link.Page{Records: []link.Record{{Tag: 3}, {Tag: 3}}}}, "share link: page record 1: tag 3 is not above 3 and below 32"},
		{link.State{Spec: logits([]string{"a", "b"}, 1, math.NaN())}, "share link: logits: token 1: NaN is neither a finite number nor -inf"},
		{link.State{Spec: logits([]string{"a"}, 1, 2)}, "share link: vocab: 1 tokens for 2 logits"},
		{link.State{Spec: logits(nil, make([]float64, 1025)...)}, "share link: logits: 1025 entries, more than 1024"},
		{link.State{Spec: with(func(s *session.Spec) { s.Edits = []session.Edit{{Logit: math.NaN()}} })},
			"share link: edit 0: logit NaN is neither a finite number nor -inf"},
		{link.State{Spec: with(func(s *session.Spec) { s.Forced = []session.Force{{Step: -1}} })},
			"share link: forced token 0: step -1 is outside [0, 4096]"},
		{link.State{Spec: with(func(s *session.Spec) { s.Steps = -1 })}, `share link: steps: "-1" is outside [0, 4096]`},
		{link.State{Spec: with(func(s *session.Spec) { s.Sampler.TopK = -1 })}, "share link: sampler: top_k: -1 is not a whole number from 0 to 1,048,576"},
		{link.State{Spec: with(func(s *session.Spec) { s.Changes = []session.Change{{Step: 0, Sampler: s.Sampler}} })},
			"share link: change 0: step 0: want a step ≥ 1"},
		{link.State{Spec: with(func(s *session.Spec) {
			s.Changes = []session.Change{{Step: 2, Sampler: s.Sampler}, {Step: 1, Sampler: s.Sampler}}
		})}, "share link: change 1: step 1 does not come after step 2 of the change before"},
		{link.State{Spec: with(func(s *session.Spec) { s.Changes = []session.Change{{Step: 9999, Sampler: s.Sampler}} })},
			"share link: change 0: step 9999 is outside [1, 4096]"},
		{link.State{Spec: with(func(s *session.Spec) {
			s.Changes = []session.Change{{Step: 1, Sampler: sampler.Settings{Mode: "greedy", Seed: 1}}}
		})},
			`share link: change 0: sampler: "greedy" is not one of chain, runc, llama.cpp, hf`},
		{link.State{Spec: logits(hexVocab(1024, 70), make([]float64, 1024)...)}, "bytes of data, more than 65536"},
		{link.State{Spec: logits(hexVocab(1024, 40), make([]float64, 1024)...)}, "characters, more than 16384"},
	} {
		if f, err := link.Encode(c.state); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Encode(%.60q…) = %.40q, %v, want %q", fmt.Sprint(c.state), f, err, c.err)
		}
	}
}

// encode is Encode for states that tests know to be valid.
func encode(t testing.TB, s link.State) string {
	t.Helper()
	f, err := link.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestMerge(t *testing.T) {
	runc := link.State{Spec: with(func(s *session.Spec) { s.Sampler.Mode = sampler.RunC }), Page: link.Page{View: "kv"}}
	for _, c := range []struct {
		name, query string
		fragment    link.State // none when zero
		want        link.State // when err is ""
		err         string
		param       bool // err is a *ParamError
	}{
		{name: "neither", want: link.State{Spec: catalog.Default()}},
		{name: "query only", query: "steps=3", want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 3 })}},
		{name: "fragment only", fragment: stories(), want: stories()},
		{name: "a setting over the fragment", query: "temperature=0.5&seed=9", fragment: stories(), want: func() link.State {
			s := stories()
			s.Spec.Sampler.Temperature, s.Spec.Sampler.Seed = 0.5, 9
			return s
		}()},
		{name: "a setting over changes, which stay", query: "temperature=0.25", fragment: changed(), want: func() link.State {
			s := changed()
			s.Spec.Sampler.Temperature = 0.25
			return s
		}()},
		{name: "the same model, spelled otherwise", query: "model=STORIES260k&prompt=Lily", fragment: stories(), want: func() link.State {
			s := stories()
			s.Spec.Prompt = "Lily"
			return s
		}()},
		{name: "another model", query: "model=toy&steps=2", fragment: stories(),
			want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 2 }), Page: link.Page{View: "tokens"}}},
		{name: "logits mean the logits model", query: "logits=1,2", fragment: stories(),
			want: link.State{Spec: logits([]string{"0", "1"}, 1, 2), Page: link.Page{View: "tokens"}}},
		{name: "new names for the tokens", query: "vocab=A,B,C,D,E,F", fragment: worked(), want: func() link.State {
			s := worked()
			s.Spec.Vocab = []string{"A", "B", "C", "D", "E", "F"}
			return s
		}()},
		{name: "new logits, as many", query: "logits=1,2,3,4,5,-inf", fragment: worked(), want: func() link.State {
			s := worked()
			s.Spec.Logits = []float64{1, 2, 3, 4, 5, math.Inf(-1)}
			return s
		}()},
		{name: "fewer logits", query: "logits=1,2,3", fragment: worked(),
			err: "the query does not fit the share link: vocab: 6 tokens for 3 logits"},
		{name: "an edit beyond new tokens", query: "logits=1,2&vocab=a,b", fragment: link.State{Spec: func() session.Spec {
			s := worked().Spec
			s.Edits = []session.Edit{{Step: 0, Token: 5, Logit: 1}}
			return s
		}()}, err: "the query does not fit the share link: edit 0: token 5 is outside the vocabulary of 2"},
		{name: "a prompt for logits", query: "prompt=x", fragment: worked(), err: "prompt: model=logits has no prompt", param: true},
		{name: "too many steps for logits", query: "steps=2", fragment: worked(), err: `steps: "2" is outside [0, 1]`, param: true},
		{name: "a stage run.c lacks", query: "top_k=3", fragment: runc,
			err: "top_k: run.c has no top-k, so top_k must be 0 in run.c mode, not 3", param: true},
		{name: "a bad model", query: "model=gpt2", fragment: runc, err: `model: "gpt2" is not one of logits, toy, stories260K`, param: true},
		{name: "a typo, ignored", query: "temprature=1", fragment: runc, want: runc},
		{name: "a stage's setting 0 in the share link stays", fragment: mirostatTau0(), want: mirostatTau0()},
		{name: "a stage switched on takes its defaults", query: "mirostat=1", fragment: link.State{Spec: with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7}
		})}, want: link.State{Spec: with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7, LlamaSettings: sampler.LlamaSettings{Mirostat: 1, MirostatTau: 5, MirostatEta: 0.1}}
		})}},
		{name: "a runtime named, with its defaults", query: "sampler=hf", fragment: stories(), want: func() link.State {
			s := stories()
			s.Spec.Sampler = hf
			s.Spec.Sampler.Seed = 7
			return s
		}()},
		{name: "a runtime named keeps ignoring the end of text", query: "sampler=hf", fragment: ignoring(stories()), want: func() link.State {
			s := stories()
			s.Spec.Sampler = hf
			s.Spec.Sampler.Seed, s.Spec.Sampler.IgnoreEOS = 7, true
			return s
		}()},
		{name: "ignore_eos=0 over the fragment", query: "ignore_eos=0", fragment: ignoring(stories()), want: stories()},
	} {
		got, err := merge(t, c.query, c.fragment)
		if c.err != "" {
			var pe *link.ParamError
			if err == nil || !strings.Contains(err.Error(), c.err) || errors.As(err, &pe) != c.param {
				t.Errorf("%s: Merge = %+v, %v, want error %q (*ParamError %v)", c.name, got, err, c.err, c.param)
			}
			continue
		}
		if err != nil || !same(got, c.want) {
			t.Errorf("%s: Merge = %+v, %v, want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := link.Merge(url.Values{"steps": {"1"}}, "s9.AAAA"); err == nil || !strings.Contains(err.Error(), "newer nexttoken") {
		t.Errorf("Merge with a newer fragment: %v", err)
	}
}

// ignoring is s with step 0's settings ignoring the end of text.
func ignoring(s link.State) link.State {
	s.Spec.Sampler.IgnoreEOS = true
	return s
}

// mirostatTau0 is a session of llama.cpp's mirostat 2 with tau 0, typed
// so in the page's field after mirostat was switched on.
func mirostatTau0() link.State {
	return link.State{Spec: with(func(s *session.Spec) {
		s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, MirostatEta: 0.1}}
	})}
}

// merge is Merge of query and, unless it is zero, fragment as a share link.
func merge(t *testing.T, query string, fragment link.State) (link.State, error) {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	var f string
	if fragment.Spec.Model != "" {
		f = encode(t, fragment)
	}
	return link.Merge(q, f)
}

// bomb is a share link whose data inflates to a megabyte of zeros.
func bomb() string {
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	_, _ = w.Write(make([]byte, 1<<20))
	_ = w.Close()
	return "s1." + base64.RawURLEncoding.EncodeToString(append([]byte{1}, z.Bytes()...))
}

func FuzzDecode(f *testing.F) {
	for _, s := range shareTests(f) {
		frag := encode(f, s)
		f.Add(frag)
		f.Add(frag[:len(frag)/2])
		f.Add(frag[:len(frag)-1])
	}
	// Flags alone: 2 is a changes section, 3 that and DEFLATE, 8 extras,
	// 0x80 and 0x10 unknown.
	for _, frag := range []string{bomb(), "", "s1.", "s1.A", "s9.AAAA", "#s1.AA", "s1.AQ", "s1.AP8", "s1.Ag", "s1.Aw", "s1.gA", "s1.CA", "s1.EA"} {
		f.Add(frag)
	}
	f.Fuzz(func(t *testing.T, frag string) {
		s, err := link.Decode(frag)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "share link: ") {
				t.Fatalf("Decode(%.60q): %v", frag, err)
			}
			return
		}
		again, err := link.Encode(s)
		if err != nil {
			t.Fatalf("Decode(%.60q) = %+v, which Encode rejects: %v", frag, s, err)
		}
		if back, err := link.Decode(again); err != nil || !same(back, s) {
			t.Fatalf("Decode(%.60q) = %+v; Encode gave %q, which decodes to %+v, %v", frag, s, again, back, err)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range []struct{ name, fragment string }{
		{"stories", encode(b, stories())},
		{"200tokens", encode(b, wide(b, 200))},
		{"bomb", bomb()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = link.Decode(c.fragment)
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range []struct {
		name  string
		state link.State
	}{
		{"stories", stories()},
		{"200tokens", wide(b, 200)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = link.Encode(c.state)
			}
		})
	}
}
