package link_test

import (
	"errors"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// TestParseForeignParameters checks that parameters the playground does
// not know — added by trackers, chat apps and the page itself — are
// ignored, and that names match in any case.
func TestParseForeignParameters(t *testing.T) {
	for _, c := range []struct {
		query string
		want  session.Spec // when err is ""
		err   string
		value string // the *ParamError's Value
	}{
		{query: "utm_source=newsletter&fbclid=IwAR0&gclid=Cj0&ref=hn&steps=2", want: with(func(s *session.Spec) { s.Steps = 2 })},
		{query: "embed=1&view=softmax&theme=dark", want: catalog.Default()},
		{query: "temprature=1&=2&%20=3", want: catalog.Default()},
		{query: "Temperature=0.5&STEPS=3&Model=Stories260k", want: with(func(s *session.Spec) {
			s.Model, s.Prompt, s.Steps, s.Sampler.Temperature = "stories260K", "Once upon a time", 3, 0.5
		})},
		// The value named is the first in the sorted order of the names.
		{query: "steps=1&Steps=2", err: "steps: given more than once", value: "2"},
		{query: "TOP_P=2", err: `top_p: "2" is not a number from 0 to 1`, value: "2"},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := link.Parse(q)
		if c.err != "" {
			var pe *link.ParamError
			if err == nil || err.Error() != c.err || !errors.As(err, &pe) || pe.Value != c.value {
				t.Errorf("Parse(%q) = %v, want *ParamError %q with value %q", c.query, err, c.err, c.value)
			}
			continue
		}
		if err != nil || !same(link.State{Spec: got}, link.State{Spec: c.want}) {
			t.Errorf("Parse(%q) = %+v, %v, want %+v", c.query, got, err, c.want)
		}
	}
}

// TestPageOf checks that the page's parameters are read in any case, and
// that Merge leaves them to PageOf.
func TestPageOf(t *testing.T) {
	for _, c := range []struct {
		query string
		want  link.Page
	}{
		{"", link.Page{}},
		{"embed=1&theme=dark", link.Page{Embed: true, Theme: "dark"}},
		{"Embed=1&THEME=light&steps=2", link.Page{Embed: true, Theme: "light"}},
		{"embed=0&theme=", link.Page{}},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := link.PageOf(q); got != c.want {
			t.Errorf("PageOf(%q) = %+v, want %+v", c.query, got, c.want)
		}
		if _, err := link.Merge(q, ""); err != nil {
			t.Errorf("Merge(%q): %v", c.query, err)
		}
	}
}

// TestPageParams checks that the page's own parameters are handed over as
// given, read by the rules of every parameter, and that Parse, Merge and
// Open leave them alone.
func TestPageParams(t *testing.T) {
	names := []string{"embed", "theme", "lang"}
	for _, c := range []struct {
		query string
		want  map[string]string
		bad   []string // the errors
	}{
		{"", map[string]string{}, nil},
		{"embed=1&theme=dark&utm_source=x", map[string]string{"embed": "1", "theme": "dark"}, nil},
		{"Embed=1&THEME=Nope&lang=", map[string]string{"embed": "1", "theme": "Nope", "lang": ""}, nil},
		{"theme=dark&Theme=light&embed=1", map[string]string{"embed": "1"}, []string{"theme: given more than once"}},
		{"lang=100%&theme=dark&embed=%zz", map[string]string{"theme": "dark"}, []string{
			`lang: "100%" has a % that starts no escape (a percent sign is %25)`,
			`embed: "%zz" has a % that starts no escape (a percent sign is %25)`}},
		{"theme=" + strings.Repeat("a", 64<<10+1), map[string]string{}, []string{"theme: 65537 bytes, more than 65536"}},
	} {
		got, bad := link.PageParams(c.query, names...)
		var errs []string
		for _, pe := range bad {
			errs = append(errs, pe.Error())
		}
		if !maps.Equal(got, c.want) || !slices.Equal(errs, c.bad) {
			t.Errorf("PageParams(%.40q) = %q, %q, want %q, %q", c.query, got, errs, c.want, c.bad)
		}
		q, _ := link.ParseQuery(c.query)
		if s, err := link.Merge(q, ""); err != nil || !same(s, link.State{Spec: catalog.Default()}) {
			t.Errorf("Merge(%.40q) = %+v, %v", c.query, s, err)
		}
		if s, dropped := link.Open(c.query, ""); !same(s, link.State{Spec: catalog.Default()}) || len(dropped) > 0 {
			t.Errorf("Open(%.40q) = %+v, %q", c.query, s, dropped)
		}
	}
}

// TestParamWords checks the sentence that says a parameter was left out.
func TestParamWords(t *testing.T) {
	for _, c := range []struct {
		pe   link.ParamError
		want string
	}{
		{link.ParamError{Param: "view", Value: "nope", Reason: `"nope" is not one of all, kv`},
			"The link's view, “nope”, is not one of all, kv, so the page shows every view."},
		{link.ParamError{Param: "view", Value: "kv", Reason: "given more than once"},
			"The link's view, “kv”, was left out (given more than once), so the page shows every view."},
		{link.ParamError{Param: "logits", Value: "1,2", Reason: "too few"},
			"The link's view, “1,2”, were left out (too few), so the page shows every view."},
		{link.ParamError{Param: "view", Value: strings.Repeat("é", 30) + "\xff", Reason: link.Quote(strings.Repeat("é", 30)+"\xff") + " is not one of all"},
			"The link's view, “" + strings.Repeat("é", 20) + "…”, is not one of all, so the page shows every view."},
	} {
		if got := c.pe.Words("view", "the page shows every view"); got != c.want {
			t.Errorf("Words(%q) = %q, want %q", c.pe.Error(), got, c.want)
		}
	}
}

// TestMergeAnchor checks that a fragment that is not a share link is an
// anchor of the page, which Merge ignores, while a broken share link is
// still an error.
func TestMergeAnchor(t *testing.T) {
	q := url.Values{"steps": {"2"}}
	want := link.State{Spec: with(func(s *session.Spec) { s.Steps = 2 })}
	for _, f := range []string{"intro", "section-2", "s", "s1", "s1x.AA", "sx.AA", "S1.AA", "top.s1.AA", "#s1.AA"} {
		if got, err := link.Merge(q, f); err != nil || !same(got, want) {
			t.Errorf("Merge(steps=2, %q) = %+v, %v, want %+v", f, got, err, want)
		}
	}
	for _, c := range []struct{ fragment, err string }{
		{"s1.", "share link: no data"},
		{"s1.!!", "share link: not base64url"},
		{"s9.AAAA", "newer nexttoken"},
		{"s12.x", `format "s12"`},
	} {
		if _, err := link.Merge(q, c.fragment); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Merge(steps=2, %q): %v, want an error with %q", c.fragment, err, c.err)
		}
	}
}

// TestParseQuery checks that a stray % in a value is reported against its
// parameter, and that what url.ParseQuery refuses for other reasons reads.
func TestParseQuery(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want url.Values
		err  string // a *ParamError's message
	}{
		{raw: "model=stories260K&prompt=100%", want: url.Values{"model": {"stories260K"}},
			err: `prompt: "100%" has a % that starts no escape (a percent sign is %25)`},
		{raw: "Prompt=%zz&steps=1", want: url.Values{"steps": {"1"}}, err: `prompt: "%zz" has a % that starts no escape (a percent sign is %25)`},
		{raw: "prompt=100%25&steps=2", want: url.Values{"prompt": {"100%"}, "steps": {"2"}}},
		{raw: "utm_source=50%&steps=1", want: url.Values{"steps": {"1"}}},
		{raw: "pro%zmpt=1&steps=1", want: url.Values{"steps": {"1"}}},
		{raw: "prompt=a;b&steps=1", want: url.Values{"prompt": {"a;b"}, "steps": {"1"}}},
		{raw: "prompt=Once+upon%20a%2Btime&&vocab", want: url.Values{"prompt": {"Once upon a+time"}, "vocab": {""}}},
		{raw: "", want: url.Values{}},
	} {
		got, err := link.ParseQuery(c.raw)
		var pe *link.ParamError
		switch {
		case c.err == "" && err != nil, c.err != "" && (err == nil || err.Error() != c.err || !errors.As(err, &pe)):
			t.Errorf("ParseQuery(%q): %v, want %q", c.raw, err, c.err)
		case !sameValues(got, c.want):
			t.Errorf("ParseQuery(%q) = %v, want %v", c.raw, got, c.want)
		}
	}
}

func sameValues(a, b url.Values) bool {
	return a.Encode() == b.Encode() && len(a) == len(b)
}

// TestModelAlone checks that a model named alone opens as the catalog
// opens it: its own prompt, or the worked example.
func TestModelAlone(t *testing.T) {
	for _, c := range []struct {
		query string
		want  session.Spec
	}{
		{"model=stories260K", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampler.DefaultSettings()}},
		{"model=stories260K&steps=3", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampler.DefaultSettings(), Steps: 3}},
		{"model=stories260K&prompt=Lily", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampler.DefaultSettings()}},
		{"model=toy", catalog.Default()},
		{"model=logits", logits([]string{"The", "cat", "sat", "on", "the", "mat"}, -2.1, 0.3, 3.1, 0.8, 0.1, -0.5)},
		{"model=logits&vocab=a,b,c,d,e,f", logits([]string{"a", "b", "c", "d", "e", "f"}, -2.1, 0.3, 3.1, 0.8, 0.1, -0.5)},
		{"model=logits&logits=1,2", logits([]string{"0", "1"}, 1, 2)},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := link.Parse(q); err != nil || !same(link.State{Spec: got}, link.State{Spec: c.want}) {
			t.Errorf("Parse(%q) = %+v, %v, want %+v", c.query, got, err, c.want)
		}
	}
}

// TestFilterMeansSampling checks that a filter named over greedy settings
// switches sampling on at temperature 1, unless the query says otherwise.
func TestFilterMeansSampling(t *testing.T) {
	sampled := func(edit func(s *sampler.Settings)) link.State {
		return link.State{Spec: with(func(s *session.Spec) { edit(&s.Sampler) })}
	}
	greedyFragment := link.State{Spec: with(func(s *session.Spec) { s.Steps = 2 })}
	for _, c := range []struct {
		query    string
		fragment link.State // none when zero
		want     link.State
	}{
		{query: "top_p=0.9", want: sampled(func(s *sampler.Settings) { s.Temperature, s.TopP = 1, 0.9 })},
		{query: "top_k=40", want: sampled(func(s *sampler.Settings) { s.Temperature, s.TopK = 1, 40 })},
		{query: "min_p=0.05", want: sampled(func(s *sampler.Settings) { s.Temperature, s.MinP = 1, 0.05 })},
		{query: "sampler=runc&top_p=0.9", want: sampled(func(s *sampler.Settings) { s.Mode, s.Temperature, s.TopP = sampler.RunC, 1, 0.9 })},
		{query: "top_p=0.9&temperature=0", want: sampled(func(s *sampler.Settings) { s.TopP = 0.9 })},
		{query: "top_p=0.9&temperature=0.5", want: sampled(func(s *sampler.Settings) { s.Temperature, s.TopP = 0.5, 0.9 })},
		{query: "top_p=1", want: sampled(func(s *sampler.Settings) { s.TopP = 1 })}, // off: still greedy
		{query: "repetition_penalty=1.5", want: sampled(func(s *sampler.Settings) { s.RepetitionPenalty = 1.5 })},
		{query: "top_k=3", fragment: greedyFragment, want: link.State{Spec: with(func(s *session.Spec) {
			s.Steps, s.Sampler.Temperature, s.Sampler.TopK = 2, 1, 3
		})}},
	} {
		if got, err := merge(t, c.query, c.fragment); err != nil || !same(got, c.want) {
			t.Errorf("Merge(%q) = %+v, %v, want %+v", c.query, got, err, c.want)
		}
	}
	// Query keeps a greedy session with a filter greedy.
	greedy := sampled(func(s *sampler.Settings) { s.TopP = 0.9 })
	if q, _ := link.Query(greedy); q.Encode() != "temperature=0&top_p=0.9" {
		t.Errorf("Query(greedy, top_p 0.9) = %q", q.Encode())
	}
}

// TestAt checks the step on display in the readable form and in share
// links.
func TestAt(t *testing.T) {
	five := with(func(s *session.Spec) { s.Steps = 5 })
	for _, c := range []struct {
		query    string
		fragment link.State // none when zero
		want     link.State // when err is ""
		err      string
	}{
		{query: "steps=5&at=3", want: link.State{Spec: five, At: 3}},
		{query: "at=5&steps=5", want: link.State{Spec: five, At: 5}},
		{query: "AT=1&steps=5", want: link.State{Spec: five, At: 1}},
		{query: "steps=5&at=0", err: "at: step 0 is not one of the session's 5 steps"},
		{query: "steps=5&at=6", err: "at: step 6 is not one of the session's 5 steps"},
		{query: "at=1", err: "at: step 1 is not one of the session's 0 steps"},
		{query: "steps=5&at=x", err: `at: "x" is not a whole number`},
		{query: "", fragment: link.State{Spec: five, At: 2}, want: link.State{Spec: five, At: 2}},
		{query: "at=4", fragment: link.State{Spec: five, At: 2}, want: link.State{Spec: five, At: 4}},
		{query: "steps=1", fragment: link.State{Spec: five, At: 2},
			err: "the query does not fit the share link: at: step 2 is not one of the session's 1 steps"},
		{query: "model=stories260K", fragment: link.State{Spec: five, At: 2, View: "kv"}, want: link.State{
			Spec: session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampler.DefaultSettings()}, View: "kv"}},
	} {
		got, err := merge(t, c.query, c.fragment)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("Merge(%q) = %v, want error %q", c.query, err, c.err)
		case c.err == "" && (err != nil || !same(got, c.want)):
			t.Errorf("Merge(%q) = %+v, %v, want %+v", c.query, got, err, c.want)
		}
	}
	if q, lossy := link.Query(link.State{Spec: five, At: 3, View: "softmax"}); q.Encode() != "at=3&steps=5&view=softmax" || lossy {
		t.Errorf("Query(at 3) = %q, %v", q.Encode(), lossy)
	}
	if _, err := link.Encode(link.State{Spec: five, At: 6}); err == nil || err.Error() != "share link: at: step 6 is not one of the session's 5 steps" {
		t.Errorf("Encode(at 6 of 5): %v", err)
	}
	if _, err := link.Encode(link.State{Spec: five, At: -1}); err == nil {
		t.Errorf("Encode(at -1) succeeded")
	}
}

// TestCompare checks the compare card's chains in the readable form and
// over share links.
func TestCompare(t *testing.T) {
	def := catalog.Default()
	chains := func(a, b string, own bool) link.Compare { return link.Compare{Chains: [2]string{a, b}, Own: own} }
	for _, c := range []struct {
		query    string
		fragment link.State // none when zero
		want     link.State // when err is ""
		err      string
	}{
		{query: "compare=chain,hf", want: link.State{Spec: def, Compare: chains("chain", "hf", false)}},
		{query: "Compare=HF,Llama.CPP&compare_own=1", want: link.State{Spec: def, Compare: chains("hf", "llama.cpp", true)}},
		{query: "compare=kt,runc&compare_own=0", want: link.State{Spec: def, Compare: chains("kt", "runc", false)}},
		{query: "compare_own=1&view=compare", want: link.State{Spec: def, View: "compare", Compare: link.Compare{Own: true}}},
		{query: "compare=chain", err: `compare: "chain" is not two chains separated by a comma`},
		{query: "compare=chain,hf,runc", err: `compare: "chain,hf,runc" is not two chains separated by a comma`},
		{query: "compare=,", err: `compare: chain "" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf, nor a llama.cpp letter sequence`},
		{query: "compare=chain,KT", err: `compare: chain "KT" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf, nor a llama.cpp letter sequence such as edskypmxt: samplers: unknown letter 'K' in "KT"`},
		{query: "compare=chain," + strings.Repeat("k", 33), err: "compare: chain \"kkkkkkkkkkkk\"…: 33 letters, more than the 32 stages a chain may have"},
		{query: "compare_own=yes", err: `compare_own: "yes" is not 0 or 1`},
		{query: "compare=chain,hf&compare=runc,hf", err: "compare: given more than once"},
		{query: "compare_own=1", fragment: link.State{Spec: def, Compare: chains("runc", "kt", false)},
			want: link.State{Spec: def, Compare: chains("runc", "kt", true)}},
		{query: "compare=hf,chain", fragment: link.State{Spec: def, Compare: chains("runc", "kt", true)},
			want: link.State{Spec: def, Compare: chains("hf", "chain", true)}},
		{query: "model=stories260K", fragment: link.State{Spec: def, View: "compare", Compare: chains("runc", "kt", true)}, want: link.State{
			Spec: session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampler.DefaultSettings()}, View: "compare",
			Compare: chains("runc", "kt", true)}},
	} {
		got, err := merge(t, c.query, c.fragment)
		var pe *link.ParamError
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err || !errors.As(err, &pe)):
			t.Errorf("Merge(%q) = %v, want the *ParamError %q", c.query, err, c.err)
		case c.err == "" && (err != nil || !same(got, c.want)):
			t.Errorf("Merge(%q) = %+v, %v, want %+v", c.query, got, err, c.want)
		}
	}
	s := link.State{Spec: def, View: "compare", Compare: chains("chain", "hf", true)}
	if q, lossy := link.Query(s); q.Encode() != "compare=chain%2Chf&compare_own=1&view=compare" || lossy {
		t.Errorf("Query(compare) = %q, %v", q.Encode(), lossy)
	}
	if _, err := link.Encode(link.State{Spec: def, Compare: chains("chain", "q", false)}); err == nil ||
		!strings.HasPrefix(err.Error(), `share link: compare: chain "q" is none of`) {
		t.Errorf("Encode(chain q): %v", err)
	}
}
