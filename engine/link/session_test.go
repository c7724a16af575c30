package link_test

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/chat"
	"nexttoken/engine/checkpoint"
	"nexttoken/engine/link"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// FuzzLinkSession follows a link the way the playground does: query and
// fragment → state → session, then the session's own share link → state →
// session. A link the page opens must give a session whose link reopens
// the very same session: same spec, same tokens, same text.
func FuzzLinkSession(f *testing.F) {
	for _, s := range shareTests(f) {
		if s.Spec.Steps <= maxFuzzSteps {
			f.Add("", encode(f, s))
		}
	}
	for _, q := range []string{"", "model=stories260K&steps=8&temperature=1&seed=3&at=2", "model=toy&prompt=The+cat&steps=5&top_k=2&temperature=0.5",
		"model=logits&logits=2,1,0&vocab=a,b,c&steps=3&top_p=0.5&temperature=2", "utm_source=x&STEPS=2&view=kv", "prompt=100%&steps=1",
		"model=stories260K&steps=12&sampler=llama.cpp&temperature=0.8&top_k=40&top_p=0.95&min_p=0.05&seed=5",
		"model=toy&steps=4&sampler=llama.cpp&repetition_penalty=1.3", "model=stories260K&steps=6&sampler=hf&temperature=1.2&top_k=50&seed=9",
		"model=logits&logits=2,1,0&vocab=a,b,c&temperature=2&min_p=0.3&view=compare&compare=chain,hf&compare_own=1",
		"model=stories260K&prompt=&steps=40&temperature=1&seed=2&ignore_eos=1&sampler=llama.cpp",
		"model=" + chatRef + `&chat=[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi <|im_end|>"}]&steps=9&temperature=1`,
		"model=" + chatRef + `&chat=[{"role":"user","content":"Hi"},{"role":"assistant","content":"Yo"}]&generation_prompt=0&steps=3`} {
		f.Add(q, "")
	}
	f.Add("steps=2", "s1.A")
	load := chatLoader(f)
	f.Fuzz(func(t *testing.T, query, fragment string) {
		q, err := link.ParseQuery(query)
		if err != nil {
			return // named by ParseQuery; FuzzParse checks how
		}
		state, err := link.Merge(q, strings.TrimPrefix(fragment, "#"))
		if err != nil || state.Spec.Steps > maxFuzzSteps || slices.ContainsFunc(state.Spec.Branches, func(b session.Branch) bool { return b.Steps > maxFuzzSteps }) {
			return
		}
		first, err := session.New(state.Spec, load)
		if err != nil {
			return // a spec the session refuses, with its reason
		}
		page := state.Page
		page.At = min(page.At, len(first.Trace().Steps)) // the page shows the last step the session has
		shared := link.State{Spec: first.Spec(), Page: page}
		frag, err := link.Encode(shared)
		if err != nil {
			t.Fatalf("the session of %q #%q has no link: %v", query, fragment, err)
		}
		back, err := link.Merge(nil, frag)
		if err != nil {
			t.Fatalf("the link %q of %q #%q does not open: %v", frag, query, fragment, err)
		}
		if !reflect.DeepEqual(back, shared) {
			t.Fatalf("the link of %q #%q opens\n%+v, not\n%+v", query, fragment, back, shared)
		}
		again, err := session.New(back.Spec, load)
		if err != nil {
			t.Fatalf("the link %q of %q #%q gives no session: %v", frag, query, fragment, err)
		}
		if a, b := first.Trace(), again.Trace(); a.Text != b.Text || !reflect.DeepEqual(tokens(a), tokens(b)) {
			t.Fatalf("the link of %q #%q reopens\n%q, not\n%q", query, fragment, b.Text, a.Text)
		}
		if a, b := paths(first.Tree()), paths(again.Tree()); !reflect.DeepEqual(a, b) {
			t.Fatalf("the link of %q #%q reopens another tree:\n%+v, not\n%+v", query, fragment, b, a)
		}
	})
}

// chatRef names chatLoader's chat model.
const chatRef = "file:0123456789abcdef:9:chat.gguf"

// chatLoader loads the built-in models and, as chatRef, randmodel's
// ChatML model with Qwen2.5's chat template (package chat's test data).
func chatLoader(t testing.TB) session.Loader {
	ckpt, tok, err := randmodel.ChatML(checkpoint.Config{Dim: 16, HiddenDim: 32, Layers: 1, Heads: 2, KVHeads: 2, VocabSize: 400, SeqLen: 128}, 5)
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.Pair(chatRef, ckpt, tok)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "chat", "testdata", "qwen2.5-instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := chat.Compile(string(src))
	if err != nil {
		t.Fatal(err)
	}
	m.ChatTemplate = string(src)
	if err := m.SetChat(tmpl); err != nil {
		t.Fatal(err)
	}
	return func(name string) (*session.Model, error) {
		if name == chatRef {
			return m, nil
		}
		return models.Load(name)
	}
}

// maxFuzzSteps keeps a fuzzed session short: the steps are checked by the
// session's own tests, the link's part is what is fuzzed here.
const maxFuzzSteps = 64

// path is what a link must bring back of a path of the tree: where it
// leaves, its hand edits, its tokens and its log-probability's bits. A
// step's other numbers may be NaN (a llama.cpp draw over a distribution
// that overflowed), which reflect.DeepEqual never finds equal.
type path struct {
	session.Branch
	Tokens []int
	Prob   uint64
}

func paths(tree []session.Path) []path {
	out := make([]path, len(tree))
	for i, p := range tree {
		out[i] = path{Branch: p.Branch, Prob: math.Float64bits(p.Prob)}
		for _, st := range p.Own {
			out[i].Tokens = append(out[i].Tokens, st.Token)
		}
	}
	return out
}

func tokens(t *session.Trace) []int {
	ids := make([]int, len(t.Steps))
	for i, st := range t.Steps {
		ids[i] = st.Token
	}
	return ids
}
