package link_test

import (
	"strings"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// TestOpen: a damaged address keeps every part that reads, and says in
// words what it left out.
func TestOpen(t *testing.T) {
	share, workedShare := encode(t, stories()), encode(t, worked())
	for _, c := range []struct {
		name, query, fragment string
		want                  link.State
		dropped               []link.Dropped
	}{
		{name: "a good address", query: "steps=3", fragment: share, want: func() link.State {
			s := stories()
			s.Spec.Steps = 3
			return s
		}()},
		{name: "another site's parameters after a share link", fragment: share + "&fbclid=abc", want: stories()},
		{name: "another site's query after a share link", fragment: share + "?utm_source=x&b=c", want: stories()},
		{name: "a bad value", query: "temperature=abc&steps=3", want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 3 })},
			dropped: []link.Dropped{{"temperature", "The link's temperature, “abc”, is not a number from 0 to 100, so the temperature is 0 (greedy)."}}},
		{name: "a share link cut short", query: "steps=3", fragment: share[:len(share)/2], want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 3 })},
			dropped: []link.Dropped{{"#", "The share link is damaged or cut short, so the page opens the session its other parameters describe."}}},
		{name: "a share link cut short, alone", fragment: share[:len(share)-3], want: link.State{Spec: catalog.Default()},
			dropped: []link.Dropped{{"#", "The share link is damaged or cut short, so the page opens its default session."}}},
		{name: "a share link of a newer nexttoken", fragment: "s9.AAAA", want: link.State{Spec: catalog.Default()},
			dropped: []link.Dropped{{"#", "The share link was made by a newer nexttoken than this page, so the page opens its default session."}}},
		{name: "the page's parameters, the page's to read", query: "steps=3&at=9&at=1&view=Nope&compare=x", want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 3 })}},
		{name: "conflicting parameters", query: "sampler=runc&top_k=3&temperature=1", want: link.State{Spec: with(func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.RunC, Temperature: 1, RepetitionPenalty: 1, Seed: 42}
		})}, dropped: []link.Dropped{{"top_k", "The link's top-k, “3”, was left out (run.c has no top-k, so top_k must be 0 in run.c mode, not 3), so the top-k is 0 (off)."}}},
		{name: "logits with another model", query: "model=toy&logits=1,2", want: link.State{Spec: catalog.Default()},
			dropped: []link.Dropped{{"logits", "The link's logits, “1,2”, were left out (goes with model=logits, not model=toy), so the model is toy."}}},
		{name: "an unknown model", query: "model=gpt2&steps=2", want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 2 })},
			dropped: []link.Dropped{{"model", "The link's model, “gpt2”, is not one of logits, toy, stories260K, so the model is toy."}}},
		{name: "two bad parameters", query: "prompt=100%&steps=x&Steps=2&seed=7", want: link.State{Spec: with(func(s *session.Spec) { s.Sampler.Seed = 7 })},
			dropped: []link.Dropped{
				{"prompt", "The link's prompt, “100%”, has a % that starts no escape (a percent sign is %25), so the prompt is “The cat”."},
				{"steps", "The link's number of steps, “2”, was left out (given more than once), so the session takes 0 steps."}}},
		{name: "a rule of the settings together, over a share link", query: "seed=4294967295&steps=2", fragment: encode(t, runtimes()), want: func() link.State {
			s := runtimes()
			s.Spec.Steps = 2
			return s
		}(), dropped: []link.Dropped{{"seed", "The link's seed, “4294967295”, was left out (llama.cpp mode: seed: 4294967295 is LLAMA_DEFAULT_SEED, which llama.cpp replaces with a random seed), so the seed is 5."}}},
		{name: "a parameter that does not fit the share link", query: "logits=1,2,3&view=kv", fragment: workedShare, want: worked(), dropped: []link.Dropped{{"logits", "The link's logits, “1,2,3”, were left out (with the share link, vocab: 6 tokens for 3 logits), so the logits are “-2.1, 0.3, 3.1, 0.8, 0.1, -0.5” for “The, cat, sat, on, the, mat”."}}},
		{name: "a bad value and a parameter that does not fit", query: "temperature=abc&logits=1,2,3", fragment: workedShare, want: worked(),
			dropped: []link.Dropped{
				{"temperature", "The link's temperature, “abc”, is not a number from 0 to 100, so the temperature is 0 (greedy)."},
				{"logits", "The link's logits, “1,2,3”, were left out (with the share link, vocab: 6 tokens for 3 logits), so the logits are “-2.1, 0.3, 3.1, 0.8, 0.1, -0.5” for “The, cat, sat, on, the, mat”."}}},
		{name: "ignore_eos neither 0 nor 1", query: "ignore_eos=2&steps=1", want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 1 })},
			dropped: []link.Dropped{{"ignore_eos", "The link's ignore_eos, “2”, is not 0 or 1, so the end of a text ends the session."}}},
		{name: "unknown parameters, ignored", query: "temprature=1&utm_source=x", fragment: share, want: stories()},
	} {
		got, dropped := link.Open(c.query, c.fragment)
		if !same(got, c.want) {
			t.Errorf("%s: Open = %+v\nwant %+v", c.name, got, c.want)
		}
		if len(dropped) != len(c.dropped) {
			t.Errorf("%s: dropped %q, want %q", c.name, dropped, c.dropped)
			continue
		}
		for i := range dropped {
			if dropped[i] != c.dropped[i] {
				t.Errorf("%s: dropped %q\nwant %q", c.name, dropped[i], c.dropped[i])
			}
		}
	}
}

// FuzzOpen: Open never fails. What Merge reads, Open reads the same
// without a word; otherwise every State it returns is one a share link
// carries, and every part it leaves out is said in a sentence.
func FuzzOpen(f *testing.F) {
	frag := encode(f, stories())
	for _, c := range parseTests {
		f.Add(c.query, "")
		f.Add(c.query, frag)
	}
	for _, s := range shareTests(f) {
		fr := encode(f, s)
		f.Add("steps=1&at=2", fr)
		f.Add("", fr[:len(fr)/2])
		f.Add("temperature=x", fr+"&fbclid=1")
	}
	f.Fuzz(func(t *testing.T, raw, fragment string) {
		s, dropped := link.Open(raw, fragment)
		if _, err := link.Encode(s); err != nil {
			t.Fatalf("Open(%q, %.60q) = %+v, which Encode refuses: %v", raw, fragment, s, err)
		}
		for _, d := range dropped {
			if d.Part == "" || !strings.HasPrefix(d.Message, "The ") || !strings.HasSuffix(d.Message, ".") ||
				strings.Contains(d.Message, "sampler: ") || strings.Contains(d.Message, "share link: ") {
				t.Errorf("Open(%q, %.60q): %q", raw, fragment, d)
			}
		}
		q, err := link.ParseQuery(raw)
		if err != nil {
			return
		}
		if want, err := link.Merge(q, fragment); err == nil && (!same(s, want) || len(dropped) > 0) {
			t.Fatalf("Open(%q, %.60q) = %+v, %q; Merge gave %+v", raw, fragment, s, dropped, want)
		}
	})
}
