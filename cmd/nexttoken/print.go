package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// printSoftmaxSteps prints the one step of a hand-typed logit vector as the
// worked example teaches it: subtract the max, exponentiate and sum, divide
// and choose.
func printSoftmaxSteps(w io.Writer, s *session.Session) error {
	step := s.Trace().Steps[0]
	sm := step.Choice.Softmax
	tok := s.Model().Tokenizer
	name := func(i int) string { return tok.Token(i) }

	fmt.Fprintf(w, "%d tokens, temperature %s\n\n", len(sm.Logits), num(sm.Temperature))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	scaled := sm.Temperature != 1
	fmt.Fprintln(w, "Step 1: subtract the maximum, so no exponential can overflow")
	header := "\ttoken\tℓ\t"
	if scaled {
		header += "ℓ/T\t"
	}
	fmt.Fprintln(tw, header+"ℓ − max\t")
	for i := range sm.Logits {
		row := fmt.Sprintf("\t%s\t%s\t", name(i), num(sm.Logits[i]))
		if scaled {
			row += num(sm.Scaled[i]) + "\t"
		}
		fmt.Fprintln(tw, row+num(sm.Shifted[i])+"\t")
	}
	tw.Flush()
	fmt.Fprintf(w, "  max = %s\n\n", num(sm.Max))

	fmt.Fprintln(w, "Step 2: exponentiate and sum")
	for i := range sm.Exp {
		fmt.Fprintf(tw, "\t%s\te^%s =\t%s\t\n", name(i), num(sm.Shifted[i]), num(sm.Exp[i]))
	}
	tw.Flush()
	fmt.Fprintf(w, "  sum = %s\n\n", num(sm.Sum))

	fmt.Fprintln(w, "Step 3: divide by the sum, then choose")
	for i := range sm.Probs {
		fmt.Fprintf(tw, "\t%s\t%s / %s =\t%s\t\n", name(i), num(sm.Exp[i]), num(sm.Sum), num(sm.Probs[i]))
	}
	tw.Flush()
	fmt.Fprintln(w)
	printChoice(w, "  ", step, name)
	return nil
}

// printSession prints prefill and every step of a model session.
func printSession(w io.Writer, s *session.Session, top int) error {
	t := s.Trace()
	m := s.Model()
	tok := m.Tokenizer
	name := func(i int) string { return strconv.Quote(tok.Piece(-1, i)) }

	fmt.Fprintf(w, "model %s %s\n", m.Name, m.Checkpoint.Config)
	fmt.Fprintf(w, "sampler %s\n", describeSettings(s.Spec().Sampler))
	fmt.Fprintf(w, "prompt %q: %d tokens\n", s.Spec().Prompt, len(t.Prompt))
	for pos, p := range t.Prompt {
		fmt.Fprintf(w, "  %3d  %5d  %q\n", pos, p.ID, p.Text)
	}
	prefillKV := len(t.Prompt)
	fmt.Fprintf(w, "prefill: KV cache %d positions, %d bytes (%d per position)\n\n",
		prefillKV, prefillKV*s.Transformer().Cache.RowBytes(), s.Transformer().Cache.RowBytes())

	for i, step := range t.Steps {
		fmt.Fprintf(w, "step %d  pos %d  input %s\n", i+1, step.Pos, name(step.Input))
		probs := step.Choice.Softmax.Probs
		for _, id := range topTokens(probs, top) {
			fmt.Fprintf(w, "    %-14s p=%-12s logit=%s\n", name(id), num(probs[id]), num(step.Logits[id]))
		}
		printChoice(w, "  ", step, name)
		fmt.Fprintf(w, "  KV cache %d positions, %d bytes\n\n", step.KVLen, step.KVBytes)
	}
	fmt.Fprintf(w, "text: %q\n", t.Text)
	if t.Stopped != "" {
		fmt.Fprintf(w, "stopped: %s\n", t.Stopped)
	}
	return nil
}

// printChoice prints what the sampler stages did and the chosen token.
func printChoice(w io.Writer, indent string, step session.Step, name func(int) string) {
	c := step.Choice
	for _, st := range c.Stages {
		switch {
		case len(st.Changed) > 0:
			fmt.Fprintf(w, "%s%s changed %d logits\n", indent, st.Name, len(st.Changed))
		case len(st.Removed) > 0:
			fmt.Fprintf(w, "%s%s removed %d tokens, %s of the probability\n", indent, st.Name, len(st.Removed), num(st.RemovedMass))
		}
	}
	p := c.Softmax.Probs[step.Token]
	switch {
	case step.Forced:
		fmt.Fprintf(w, "%sforced: %s (p = %s; the sampler chose %s)\n", indent, name(step.Token), num(p), name(c.Token))
	case c.Greedy:
		fmt.Fprintf(w, "%sgreedy: argmax p = %s (id %d, p = %s)\n", indent, name(step.Token), step.Token, num(p))
	default:
		d := c.Draw
		lo := 0.0
		if d.Index > 0 {
			lo = d.CDF[d.Index-1]
		}
		fmt.Fprintf(w, "%sdraw: u = %s lands in [%s, %s) of the cumulative distribution: %s (id %d, p = %s)\n",
			indent, num(d.Target), num(lo), num(d.CDF[d.Index]), name(step.Token), step.Token, num(p))
	}
}

// topTokens returns the n most probable token ids, most probable first.
func topTokens(probs []float64, n int) []int {
	ids := make([]int, len(probs))
	for i := range ids {
		ids[i] = i
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(probs[b], probs[a]) })
	return ids[:min(n, len(ids))]
}

func describeSettings(s sampler.Settings) string {
	if s.Temperature == 0 {
		return "greedy (temperature 0)"
	}
	parts := []string{cmp.Or(s.Mode, sampler.Chain), "temperature " + num(s.Temperature)}
	for _, f := range []struct {
		name string
		v    float64
		off  bool
	}{
		{"top-k", float64(s.TopK), s.TopK == 0},
		{"top-p", s.TopP, s.TopP == 0 || s.TopP == 1},
		{"min-p", s.MinP, s.MinP == 0},
		{"repetition penalty", s.RepetitionPenalty, s.RepetitionPenalty == 0 || s.RepetitionPenalty == 1},
	} {
		if !f.off {
			parts = append(parts, f.name+" "+num(f.v))
		}
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(", seed %d", s.Seed)
}

// num formats x with six significant digits: enough to see where a hand
// calculation rounded, short enough to read.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
