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

// TestPageParams checks that the page's own parameters are handed over as
// given, read by the rules of every parameter, and that Parse, Merge and
// Open leave them alone.
func TestPageParams(t *testing.T) {
	names := []string{"embed", "view", "compare"}
	for _, c := range []struct {
		query string
		want  map[string]string
		bad   []string // the errors
	}{
		{"", map[string]string{}, nil},
		{"embed=1&view=kv&theme=dark&utm_source=x", map[string]string{"embed": "1", "view": "kv"}, nil},
		{"Embed=1&VIEW=Nope&compare=", map[string]string{"embed": "1", "view": "Nope", "compare": ""}, nil},
		{"view=kv&View=tokens&embed=1", map[string]string{"embed": "1"}, []string{"view: given more than once"}},
		{"compare=100%&view=kv&embed=%zz", map[string]string{"view": "kv"}, []string{
			`compare: "100%" has a % that starts no escape (a percent sign is %25)`,
			`embed: "%zz" has a % that starts no escape (a percent sign is %25)`}},
		{"view=" + strings.Repeat("a", 64<<10+1), map[string]string{}, []string{"view: 65537 bytes, more than 65536"}},
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

// TestParamFault checks the sentence that says what is wrong with a
// parameter, for a page that shows nothing in its place.
func TestParamFault(t *testing.T) {
	for _, c := range []struct {
		pe   link.ParamError
		want string
	}{
		{link.ParamError{Param: "view", Value: "nope", Reason: `"nope" is not one of all, kv`},
			"The link's view, “nope”, is not one of all, kv."},
		{link.ParamError{Param: "view", Value: "kv", Reason: "given more than once"},
			"The link's view, “kv”, cannot be used (given more than once)."},
		{link.ParamError{Param: "view", Value: strings.Repeat("é", 30) + "\xff", Reason: link.Quote(strings.Repeat("é", 30)+"\xff") + " is not one of all"},
			"The link's view, “" + strings.Repeat("é", 20) + "…”, is not one of all."},
	} {
		if got := c.pe.Fault("view"); got != c.want {
			t.Errorf("Fault(%q) = %q, want %q", c.pe.Error(), got, c.want)
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
	if q, _ := link.Query(greedy.Spec); q.Encode() != "temperature=0&top_p=0.9" {
		t.Errorf("Query(greedy, top_p 0.9) = %q", q.Encode())
	}
}

// TestAt checks the step on display over share links: the share link's,
// which the page checks against the session once it runs, unless the
// query names another model.
func TestAt(t *testing.T) {
	five := with(func(s *session.Spec) { s.Steps = 5 })
	for _, c := range []struct {
		query    string
		fragment link.State
		want     link.State
	}{
		{query: "", fragment: link.State{Spec: five, Page: link.Page{At: 2}}, want: link.State{Spec: five, Page: link.Page{At: 2}}},
		{query: "steps=1", fragment: link.State{Spec: five, Page: link.Page{At: 2}},
			want: link.State{Spec: with(func(s *session.Spec) { s.Steps = 1 }), Page: link.Page{At: 2}}},
		{query: "at=4", fragment: link.State{Spec: five, Page: link.Page{At: 2}}, want: link.State{Spec: five, Page: link.Page{At: 2}}},
		{query: "model=stories260K", fragment: link.State{Spec: five, Page: link.Page{At: 2, View: "kv", Records: card("runc", "kt", 1)}}, want: link.State{
			Spec: session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampler.DefaultSettings()}, Page: link.Page{View: "kv", Records: card("runc", "kt", 1)}}},
	} {
		got, err := merge(t, c.query, c.fragment)
		if err != nil || !same(got, c.want) {
			t.Errorf("Merge(%q) = %+v, %v, want %+v", c.query, got, err, c.want)
		}
		f := encode(t, c.fragment)
		if got, dropped := link.Open(c.query, f); !same(got, c.want) || len(dropped) > 0 {
			t.Errorf("Open(%q) = %+v, %q, want %+v", c.query, got, dropped, c.want)
		}
	}
}
