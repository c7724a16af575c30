package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// softmaxSteps prints the one step of a hand-typed logit vector as the
// worked example teaches it: subtract the max, exponentiate and sum, divide
// and choose.
type softmaxSteps struct{ w io.Writer }

func (p *softmaxSteps) wantsDetail() bool              { return true }
func (p *softmaxSteps) start(s *session.Session) error { return nil }
func (p *softmaxSteps) end(s *session.Session) error   { return nil }

func (p *softmaxSteps) step(s *session.Session, i int, d *session.Detail) error {
	w := p.w
	sm := d.Choice.Softmax
	tok := s.Model().Tokenizer
	name := func(i int) string { return tok.Token(i) }

	if d.Choice.Greedy {
		fmt.Fprintf(w, "%d tokens, greedy (temperature 0): the softmax at temperature 1 shows the probabilities\n\n", len(sm.Logits))
	} else {
		fmt.Fprintf(w, "%d tokens, temperature %s\n\n", len(sm.Logits), num(sm.Temperature))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	scaled := sm.Temperature != 1
	fmt.Fprintln(w, "Step 1: subtract the maximum, so no exponential can overflow")
	header := "\ttoken\tℓ\t"
	shift := "ℓ − max"
	if scaled {
		header += "ℓ/T\t"
		shift = "ℓ/T − max"
	}
	fmt.Fprintln(tw, header+shift+"\t")
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
	printChoice(w, "  ", d.Step, name)
	return nil
}

// textTrace prints prefill and every step of a model session.
type textTrace struct{ w io.Writer }

func (p *textTrace) wantsDetail() bool { return false }

func (p *textTrace) start(s *session.Session) error {
	w, t, m := p.w, s.Trace(), s.Model()
	fmt.Fprintf(w, "model %s %s\n", m.Name, m.Checkpoint.Config)
	fmt.Fprintf(w, "sampler %s\n", describeSettings(s.Spec().Sampler))
	fmt.Fprintf(w, "prompt %q: %d tokens\n", s.Prompt(), len(t.Prompt))
	for pos, p := range t.Prompt {
		fmt.Fprintf(w, "  %3d  %5d  %q\n", pos, p.ID, p.Text)
	}
	row := s.KVRowBytes()
	fmt.Fprintf(w, "prefill: KV cache %d positions, %d bytes (%d per position)\n\n", len(t.Prompt), len(t.Prompt)*row, row)
	return nil
}

func (p *textTrace) step(s *session.Session, i int, _ *session.Detail) error {
	w, step := p.w, s.Trace().Steps[i]
	name := pieceName(s)
	fmt.Fprintf(w, "step %d  pos %d  input %s\n", i+1, step.Pos, name(step.Input))
	for _, c := range step.Top {
		fmt.Fprintf(w, "    %-14s p=%-12s logit=%s\n", name(c.Token), num(c.Prob), num(c.Logit))
	}
	printChoice(w, "  ", step, name)
	_, err := fmt.Fprintf(w, "  KV cache %d positions, %d bytes\n\n", step.KVLen, step.KVBytes)
	return err
}

func (p *textTrace) end(s *session.Session) error {
	t := s.Trace()
	fmt.Fprintf(p.w, "text: %q\n", t.Text)
	if t.Stop.Kind != session.Running {
		fmt.Fprintf(p.w, "stopped: %s\n", t.Stop)
	}
	return nil
}

// pieceName quotes a token as it reads in the text.
func pieceName(s *session.Session) func(int) string {
	tok := s.Model().Tokenizer
	return func(i int) string { return strconv.Quote(tok.Piece(-1, i)) }
}

// printChoice prints what the sampler stages did and the chosen token.
func printChoice(w io.Writer, indent string, step session.Step, name func(int) string) {
	c := step.Choice
	for _, st := range c.Stages {
		switch {
		case st.Name == sampler.StageRepetitionPenalty && st.Affected > 0:
			fmt.Fprintf(w, "%s%s changed %d logits\n", indent, st.Name, st.Affected)
		case st.Affected > 0:
			fmt.Fprintf(w, "%s%s removed %d tokens, %s of the probability\n", indent, st.Name, st.Affected, num(st.RemovedMass))
		}
	}
	switch {
	case step.Forced:
		fmt.Fprintf(w, "%sforced: %s (p = %s; the sampler chose %s)\n", indent, name(step.Token), num(step.Prob), name(c.Token))
	case c.Greedy:
		fmt.Fprintf(w, "%sgreedy: argmax p = %s (id %d, p = %s)\n", indent, name(step.Token), step.Token, num(step.Prob))
	default:
		d := c.Draw
		target := "u = " + num(d.U)
		if num(d.Target) != num(d.U) { // run.c's top-p mass, llama.cpp's unnormalised sum
			target += ", u × " + num(d.Total) + " = " + num(d.Target)
		}
		fmt.Fprintf(w, "%sdraw: %s lands in [%s, %s) of the cumulative sum: %s (id %d, p = %s)\n",
			indent, target, num(d.Lo), num(d.Hi), name(step.Token), step.Token, num(step.Prob))
	}
	if c.Note != "" {
		fmt.Fprintf(w, "%s(%s)\n", indent, c.Note)
	}
}

func describeSettings(s sampler.Settings) string {
	if s.Temperature == 0 && !s.Runtime() {
		return "greedy (temperature 0)"
	}
	parts := []string{compare.ChainName(s), "temperature " + num(s.Temperature)}
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
		if !f.off && s.Mirostat == 0 { // mirostat's chain is the temperature and mirostat alone
			parts = append(parts, f.name+" "+num(f.v))
		}
	}
	for _, p := range sampler.LlamaParams {
		if v := p.Get(s); v != 0 && p.InPlay(s) && p.Name != "mirostat" { // the chain's name says mirostat
			parts = append(parts, p.Label+" "+num(v))
		}
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(", seed %d", s.Seed)
}

// num formats x with six significant digits: enough to see where a hand
// calculation rounded, short enough to read.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
