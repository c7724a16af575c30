package link_test

import (
	"errors"
	"fmt"
	"net/url"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// The worked example as a link: six tokens and their logits, no model.
func Example() {
	q, err := url.ParseQuery("model=logits&logits=-2.1,0.3,3.1,0.8,0.1,-0.5&vocab=The,cat,sat,on,the,mat")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := link.Parse(q)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.Model, spec.Vocab, spec.Logits, spec.Steps)
	spec.Steps = 1
	s, err := session.New(spec, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("greedy choice:", s.Trace().Text)
	// Output:
	// logits [The cat sat on the mat] [-2.1 0.3 3.1 0.8 0.1 -0.5] 0
	// greedy choice: sat
}

// A bad parameter is named, so that the playground can point at it.
func Example_badParameter() {
	q, err := url.ParseQuery("model=stories260K&prompt=Once+upon+a+time&top_p=1.5")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = link.Parse(q)
	fmt.Println(err)
	var pe *link.ParamError
	if errors.As(err, &pe) {
		fmt.Printf("parameter %s, value %q\n", pe.Param, pe.Value)
	}
	// Output:
	// top_p: "1.5" is not a number from 0 to 1
	// parameter top_p, value "1.5"
}

// Query writes only what differs from catalog.Default; forced tokens do not
// fit the readable form, and Query says that it dropped them.
func ExampleQuery() {
	spec := catalog.Default()
	spec.Model, spec.Prompt, spec.Steps = "stories260K", "Once upon a time", 20
	spec.Sampler.Temperature, spec.Sampler.TopP = 0.8, 0.9
	spec.Forced = []session.Force{{Step: 3, Token: 42}}
	q, lossy := link.Query(spec)
	fmt.Println(q.Encode())
	fmt.Println("lossy:", lossy)
	// Output:
	// model=stories260K&prompt=Once+upon+a+time&steps=20&temperature=0.8&top_p=0.9
	// lossy: true
}

// A share link carries what the readable form cannot: here a token forced
// at step 0, and the view the page had open.
func ExampleEncode() {
	spec, err := link.Parse(url.Values{"logits": {"-2.1,0.3,3.1,0.8,0.1,-0.5"}, "vocab": {"The,cat,sat,on,the,mat"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	spec.Steps, spec.Forced = 1, []session.Force{{Step: 0, Token: 5}}
	fragment, err := link.Encode(link.State{Spec: spec, Page: link.Page{View: "softmax"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fragment)
	s, err := link.Decode(fragment)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Page.View, s.Spec.Logits, s.Spec.Forced)
	// Output:
	// s1.AAZsb2dpdHMAB3NvZnRtYXgBBWNoYWluAAAAAAAAAAIAKgYDVGhlA2NhdANzYXQCb24DdGhlA21hdCsBBgE-ARABAgELAQEABQA
	// softmax [-2.1 0.3 3.1 0.8 0.1 -0.5] [{0 5}]
}

// A share link carries the changes of settings made along the way: here
// the toy session, greedy for its first step and sampled at temperature 2
// from the second on. Its flags byte, 2 ("Ag" in base64), says that a
// changes section follows the edits.
func ExampleEncode_changes() {
	spec := catalog.Default()
	spec.Steps = 2
	spec.Changes = []session.Change{{Step: 1, Sampler: sampler.Settings{Mode: sampler.Chain, Temperature: 2, Seed: 7}}}
	fragment, err := link.Encode(link.State{Spec: spec})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fragment)
	s, err := link.Decode(fragment)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", s.Spec.Changes)
	// Output:
	// s1.AgN0b3kHVGhlIGNhdAACBWNoYWluAAAAAAAAAAIAKgAAAAEBBWNoYWluBAAAAAAAAAAABw
	// [{Step:1 Sampler:{Mode:chain Temperature:2 TopK:0 TopP:0 MinP:0 RepetitionPenalty:0 Seed:7 LlamaSettings:{Sequence: Mirostat:0 MirostatTau:0 MirostatEta:0 DryMultiplier:0 DryBase:0 DryAllowedLength:0 DryPenaltyLastN:0} IgnoreEOS:false}}]
}

// Readable parameters in the query override the session in the fragment;
// what the query cannot say, such as forced tokens, stays.
func ExampleMerge() {
	base := catalog.Default()
	base.Steps, base.Forced = 3, []session.Force{{Step: 1, Token: 4}}
	fragment, err := link.Encode(link.State{Spec: base, Page: link.Page{View: "tokens"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := link.Merge(url.Values{"temperature": {"0.5"}}, fragment)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Page.View, s.Spec.Steps, s.Spec.Sampler.Temperature, s.Spec.Forced)
	// Output:
	// tokens 3 0.5 [{1 4}]
}

// A share link carries the page's records in its extras section: tagged
// bytes after the session, which link carries as they are and the page
// reads (the playground's tag 1 is its compare card). Here a page keeps a
// record of tag 5, which a page that does not know the tag skips.
func ExampleEncode_page() {
	page := link.Page{View: "notes", At: 1, Records: []link.Record{{Tag: 5, Body: "pinned"}}}
	spec := catalog.Default()
	spec.Steps = 1
	fragment, err := link.Encode(link.State{Spec: spec, Page: page})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fragment)
	s, err := link.Decode(fragment)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", s.Page)
	// Output:
	// s1.DAN0b3kHVGhlIGNhdAVub3RlcwEFY2hhaW4AAAAAAAAAAgAqAAAAAQEFBnBpbm5lZA
	// {View:notes At:1 Records:[{Tag:5 Body:pinned}]}
}
