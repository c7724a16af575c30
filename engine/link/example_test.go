package link_test

import (
	"errors"
	"fmt"
	"net/url"

	"nexttoken/engine/link"
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
	// top_p: "1.5" is outside [0, 1]
	// parameter top_p, value "1.5"
}

// Query writes only what differs from Default; forced tokens do not fit the
// readable form, and Query says that it dropped them.
func ExampleQuery() {
	spec := link.Default()
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
