package llamacpp_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"nexttoken/engine/sampler/llamacpp"
	"nexttoken/engine/sampler/llamacpp/internal/refcases"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// TestMatchesLlamaCpp runs the chain on the cases of package refcases and
// requires every line that llama.cpp's own samplers printed for them
// (testdata/llamacpp.out, made by testdata/harness.cpp) to be the same: for
// every stage the array's size, sorted flag, ids in order and the bits of
// every logit and probability, and the chosen token.
func TestMatchesLlamaCpp(t *testing.T) {
	f, err := os.Open("testdata/llamacpp.out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := bufio.NewScanner(f)
	want.Buffer(nil, 1<<20)
	var cases, stages, tokens, bad int
	for _, c := range refcases.Cases() {
		for _, got := range harnessLines(t, c) {
			if !want.Scan() {
				t.Fatalf("%s: testdata/llamacpp.out ends early", c.Name)
			}
			w := want.Text()
			if got != w {
				if bad++; bad <= 10 {
					t.Errorf("%s:\n got %s\nwant %s", c.Name, got, w)
				}
				continue
			}
			switch {
			case strings.HasPrefix(w, "case "):
				cases++
			case strings.HasPrefix(w, "stage "):
				stages++
			case strings.HasPrefix(w, "chosen "):
				tokens++
			}
		}
	}
	if want.Scan() {
		t.Errorf("testdata/llamacpp.out has more lines than the cases: %q", want.Text())
	}
	t.Logf("agree with llama.cpp: %d cases, %d stage arrays, %d chosen tokens; %d lines differ", cases, stages, tokens, bad)
}

// harnessLines is what harness.cpp prints for c.
func harnessLines(t *testing.T, c refcases.Case) []string {
	ch, err := llamacpp.New(c.Params)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	lines := []string{"case " + c.Name}
	history := append([]int32(nil), c.History...)
	for range c.Steps {
		r, err := ch.Sample(c.Logits, history)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		for _, s := range r.Stages {
			ids, vals := uint64(fnvOffset), uint64(fnvOffset)
			for _, tok := range s.Tokens {
				ids = fnv(ids, uint32(tok.ID))
				vals = fnv(fnv(fnv(vals, uint32(tok.ID)), math.Float32bits(tok.Logit)), math.Float32bits(tok.P))
			}
			sorted := 0
			if s.Sorted {
				sorted = 1
			}
			var b strings.Builder
			fmt.Fprintf(&b, "stage %s %d %d %016x %016x", s.Name, len(s.Tokens), sorted, ids, vals)
			if len(s.Tokens) <= 64 {
				for _, tok := range s.Tokens {
					fmt.Fprintf(&b, " %d", tok.ID)
				}
			}
			lines = append(lines, b.String())
		}
		lines = append(lines, fmt.Sprintf("chosen %d %d", r.Token, r.Index))
		history = append(history, r.Token)
	}
	return lines
}

const fnvOffset = 0xcbf29ce484222325

// fnv is FNV-1a 64 over v's four bytes, little endian.
func fnv(h uint64, v uint32) uint64 {
	for i := range 4 {
		h ^= uint64(v >> (8 * i) & 0xff)
		h *= 0x100000001b3
	}
	return h
}

// TestSessionsMatchLlamaCpp runs the stories260K sessions of
// refcases.Sessions in llama.cpp mode and requires each step's token, and
// its position in the final array, to be those llama.cpp's own samplers
// chose on the same logits, accepting each token before the next step
// (testdata/sessions.out, made by harness.cpp from the logits that
// refcases.WriteSessions wrote). Up to the first difference the logits
// are those of llama.cpp's own tokens, so a session that agrees at every
// step is the one llama.cpp samples from this model's logits.
func TestSessionsMatchLlamaCpp(t *testing.T) {
	data, err := os.ReadFile("testdata/sessions.out")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	var name string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if n, ok := strings.CutPrefix(line, "session "); ok {
			name = n
			continue
		}
		want[name] = append(want[name], line)
	}
	var sessions, steps int
	for _, c := range refcases.Sessions() {
		s, err := session.New(c.Spec, models.Load)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got := s.Trace().Steps
		if len(got) != len(want[c.Name]) {
			t.Errorf("%s: %d steps, llama.cpp %d", c.Name, len(got), len(want[c.Name]))
		}
		for i := range min(len(got), len(want[c.Name])) {
			if g := fmt.Sprintf("chosen %d %d", got[i].Token, got[i].Choice.Draw.Index); g != want[c.Name][i] {
				t.Errorf("%s: step %d: %s, llama.cpp %s (the steps after read other logits)", c.Name, i, g, want[c.Name][i])
				break
			}
			steps++
		}
		sessions++
	}
	t.Logf("agree with llama.cpp: %d sessions, %d steps", sessions, steps)
}
