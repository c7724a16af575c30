package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// chains reads --compare: two or more chains, each with its runtime's
// defaults, and the sampler flags given on the command line instead. The
// session's own chains, chain and runc, take the session's settings.
func (f *traceFlags) chains() ([]compare.Chain, error) {
	if f.compare == "" {
		return nil, nil
	}
	names := strings.Split(f.compare, ",")
	if len(names) < 2 {
		return nil, fmt.Errorf("--compare=%s: name two chains or more, such as --compare=chain,llama.cpp", f.compare)
	}
	var chains []compare.Chain
	for _, name := range names {
		c, err := compare.Preset(strings.TrimSpace(name), f.settings.Seed)
		if err != nil {
			return nil, fmt.Errorf("--compare: %w", err)
		}
		// The session's chains take its settings; the others keep their
		// runtime's defaults but for the flags given.
		c.Follow(f.settings, func(param string) bool { return f.set[strings.ReplaceAll(param, "_", "-")] })
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("--compare: %s: %w", c.Name, err)
		}
		chains = append(chains, c)
	}
	return chains, nil
}

// chainsTrace prints a session's trace and, after each step, what the
// chains of --compare make of that step's logits: each stage's kept
// tokens, where the step's own u lands in each final distribution, and
// how far apart those distributions are.
type chainsTrace struct {
	traceWriter
	w      io.Writer
	chains []compare.Chain
}

func (c *chainsTrace) wantsDetail() bool { return true }

func (c *chainsTrace) step(s *session.Session, i int, d *session.Detail) error {
	if err := c.traceWriter.step(s, i, d); err != nil {
		return err
	}
	u := compare.SameU(d.Choice.Draw, s.Sampler(i).Seed)
	name := pieceName(s)
	if s.Model().Checkpoint == nil {
		name = func(id int) string { return s.Model().Tokenizer.Token(id) }
	}
	w := c.w
	fmt.Fprintf(w, "  the chains on step %d's logits, each drawing u = %s:\n", i+1, num(u))
	outs := make([]compare.Outcome, len(c.chains))
	for k, ch := range c.chains {
		ch.Llama.Vocab = compare.Vocab(s.Model().Tokenizer) // for DRY's sequence breakers
		out, err := compare.Run(ch, d.Logits, d.Context)
		if err != nil {
			fmt.Fprintf(w, "    %s: %v\n", ch.Name, err)
			continue
		}
		outs[k] = out
		fmt.Fprintf(w, "    %s\n", ch.Name)
		for _, st := range out.Stages {
			line := fmt.Sprintf("      %-28s %6d kept", st.Name, len(st.Kept))
			if len(st.Removed) > 0 {
				line += fmt.Sprintf(", removed %d (%s of the probability)", len(st.Removed), num(st.RemovedMass))
			}
			fmt.Fprintln(w, line)
		}
		tok := out.Land(u)
		fmt.Fprintf(w, "      u lands on %s (id %d, p = %s)\n", name(tok), tok, num(out.Final[tok]))
		if out.Note != "" {
			fmt.Fprintf(w, "      (%s)\n", out.Note)
		}
	}
	for k := 1; k < len(outs); k++ {
		a, b := outs[0], outs[k]
		if a.Final == nil || b.Final == nil {
			continue
		}
		tv, err := compare.TotalVariation(a.Final, b.Final)
		if err != nil {
			return err
		}
		ka, kb := compare.Drawable(a.Final), compare.Drawable(b.Final)
		both := 0
		for _, id := range ka {
			if _, found := slices.BinarySearch(kb, id); found {
				both++
			}
		}
		verdict := "the same token"
		if a.Land(u) != b.Land(u) {
			verdict = "different tokens"
		}
		fmt.Fprintf(w, "    %s vs %s: total variation %s; %d and %d tokens drawable, %d in both; u picks %s\n",
			a.Chain.Name, b.Chain.Name, num(tv), len(ka), len(kb), both, verdict)
	}
	_, err := fmt.Fprintln(w)
	return err
}
