package link

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"nexttoken/engine/catalog"
	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// Dropped is a part of an address that Open could not read and left out.
type Dropped struct {
	// Part is the parameter, as the package documentation spells it; "#"
	// for the share link, "?" for the query as a whole.
	Part string
	// Message says, in one sentence for people, what was wrong with the
	// part and what the page shows instead.
	Message string
}

// Open reads an address as the page opens it: rawQuery, the part after
// "?", and fragment, after "#", either of which may be empty. Where Merge
// refuses the whole address for one bad part, Open keeps every part that
// reads and leaves out the others, with a Dropped for each, in this order:
//
//   - What follows a share link's data from its first "&" or "?" is
//     another site's (fbclid=, utm_source=, which base64url never holds),
//     and goes without a word.
//   - A share link that does not decode, cut short, damaged or made by a
//     newer nexttoken, is left out, and the query is read over
//     catalog.Default.
//   - A parameter that Parse refuses (a bad value, one given twice, one
//     that conflicts with another, an unknown model) is left out, and the
//     others are read again without it. A rule of the settings together
//     blamed on a mode the query does not name leaves out the query's
//     latest setting instead.
//   - A parameter that does not fit the share link is left out; if no one
//     parameter is to blame, the query is, and the share link opens alone.
//
// Parameters Parse does not read are ignored, as by Merge: the page's own
// are PageParams'.
func Open(rawQuery, fragment string) (State, []Dropped) {
	q, bad := parseQuery(rawQuery, paramNamed)
	var dropped []Dropped
	base, shared := State{Spec: catalog.Default()}, false
	if _, ok := shareLike(fragment); ok {
		data, _, _ := strings.Cut(fragment, "&")
		data, _, _ = strings.Cut(data, "?")
		if s, err := Decode(data); err != nil {
			dropped = append(dropped, Dropped{Part: "#", Message: brokenShare(err, len(known(q)) > 0)})
		} else {
			base, shared = s, true
		}
	}
	s, more := read(base, q)
	if shared {
		if err := check(&s); err != nil {
			s, more = fit(base, q, err, &dropped)
		}
	}
	for _, pe := range append(bad, more...) {
		dropped = append(dropped, Dropped{Part: pe.Param, Message: pe.Words(label(pe.Param), instead(pe.Param, s.Spec))})
	}
	return s, dropped
}

// read is Parse of q over base, leaving out each parameter it refuses
// until the rest reads: the State, and the parameters left out.
func read(base State, q url.Values) (s State, bad []*ParamError) {
	q = maps.Clone(q)
	for {
		var err error
		if s, err = parse(base, q); err == nil {
			return s, bad
		}
		var pe *ParamError
		if !errors.As(err, &pe) { // parse fails with *ParamError only
			return base, bad
		}
		given := known(q)
		if given[pe.Param] == nil {
			// A rule of the settings together, blamed on the mode of
			// the share link: the latest setting given made it fail.
			last := ""
			for _, p := range slices.Concat(sampler.Params, sampler.LlamaParams) {
				if given[p.Name] != nil {
					last = p.Name
				}
			}
			if last == "" {
				return base, bad
			}
			pe = &ParamError{Param: last, Value: given[last][0], Reason: pe.Reason}
		}
		bad = append(bad, pe)
		drop(q, pe.Param)
	}
}

// fit finds what of q does not fit the share link base, whose check fails
// with err once q is read over it: the one parameter without which the
// rest fits, or else the whole query, which it adds to dropped. It
// returns what read returns of the query without it, that parameter
// among those left out.
func fit(base State, q url.Values, err error, dropped *[]Dropped) (State, []*ParamError) {
	given := known(q)
	for _, p := range slices.Backward(params) {
		if given[p.name] == nil {
			continue
		}
		without := maps.Clone(q)
		drop(without, p.name)
		s, more := read(base, without)
		if check(&s) == nil {
			pe := &ParamError{Param: p.name, Value: given[p.name][0], Reason: "with the share link, " + err.Error()}
			return s, append(more, pe)
		}
	}
	*dropped = append(*dropped, Dropped{Part: "?", Message: fmt.Sprintf(
		"The link's parameters do not fit its share link (%s), so the page opens the share link as it was made.", err)})
	return base, nil
}

// drop removes parameter p, in any spelling, from q.
func drop(q url.Values, p string) {
	for name := range q {
		if n, ok := paramNamed(name); ok && n == p {
			delete(q, name)
		}
	}
}

// brokenShare says that a share link that fails to decode with err is left
// out; query says whether the address has parameters to read instead.
func brokenShare(err error, query bool) string {
	what := "The share link is damaged or cut short"
	if errors.Is(err, errNewer) {
		what = "The share link was made by a newer nexttoken than this page"
	}
	if query {
		return what + ", so the page opens the session its other parameters describe."
	}
	return what + ", so the page opens its default session."
}

// label names parameter p for people.
func label(p string) string {
	for _, s := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		if s.Name == p {
			return s.Label
		}
	}
	switch p {
	case "steps":
		return "number of steps"
	case "vocab":
		return "vocabulary"
	case "ignore_eos":
		return "ignore_eos"
	}
	return p
}

// instead says what spec has in place of parameter p, which was left out.
func instead(p string, spec session.Spec) string {
	for _, set := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		if set.Name != p {
			continue
		}
		v := set.Get(spec.Sampler)
		text := "the " + set.Label + " is " + sampler.Readable(v)
		switch {
		case p == "temperature" && v == 0:
			text += " (greedy)"
		case set.IsOff(v):
			text += " (off)"
		}
		return text
	}
	switch p {
	case "model", "logits", "vocab":
		if spec.Model != session.LogitsModel {
			return "the model is " + spec.Model
		}
		return "the logits are “" + cut(strings.Join(formatAll(spec.Logits), ", ")) + "” for “" + cut(strings.Join(spec.Vocab, ", ")) + "”"
	case "prompt":
		return "the prompt is “" + cut(spec.Prompt) + "”"
	case "steps":
		return fmt.Sprintf("the session takes %d steps", spec.Steps)
	case "sampler":
		return "the sampler is " + compare.ChainName(spec.Sampler)
	case "ignore_eos":
		if spec.Sampler.IgnoreEOS {
			return "the end of a text does not end the session"
		}
		return "the end of a text ends the session"
	}
	return "it is left out"
}

// cut cuts v short for a message, as Quote does, in valid UTF-8.
func cut(v string) string {
	return strings.ToValidUTF8(short(v), "\uFFFD")
}

// formatAll writes each of xs as Query does.
func formatAll(xs []float64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = format(x)
	}
	return out
}
