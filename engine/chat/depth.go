package chat

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ardanlabs/jinja"
)

// The engine recurses in Go for each call of a macro, and a Go stack that
// overflows ends the program rather than panicking. Templates do recurse
// (to write a tool's JSON schema, say), so a macro's depth is bounded
// instead: guard adds to the source, inside every macro's body, an
// expression at its start that counts one level more and one at its end
// that counts one fewer, both printing nothing. The engine's whitespace
// control (explicit, lstrip_blocks and trim_blocks) reaches over
// expressions to the nearest text, so the rendered text is the same. A
// level past MaxDepth fails the render.
//
// The source is read, not parsed (the engine keeps its syntax tree to
// itself): a template with a raw block, whose text could hold what looks
// like a macro tag, is refused, and so is a recursive for loop, whose
// loop() the guard does not count.
var (
	// macroTag matches a macro's opening or closing tag (group 1 says
	// which), or an expression or a comment, whose text is skipped whole
	// so that a tag written in a string or a comment is not taken for one.
	macroTag      = regexp.MustCompile(`\{\{(?:[^}]|\}[^}])*\}\}|\{#(?:[^#]|#[^}])*#\}|\{%[-+]?\s*(macro|endmacro)\b(?:[^%]|%[^}])*?%\}`)
	rawTag        = regexp.MustCompile(`\{%[-+]?\s*raw\s*[-+]?%\}`)
	recursiveLoop = regexp.MustCompile(`\{%[-+]?\s*for\b(?:[^%]|%[^}])*\brecursive\b`)
)

// MaxDepth is how deep macros may call macros.
const MaxDepth = 256

// The names of the guard's callables; a template that uses them is
// refused.
const (
	enterName = "__nexttoken_enter"
	leaveName = "__nexttoken_leave"
)

// guard returns src with the depth of its macros counted.
func guard(src string) (string, error) {
	switch {
	case recursiveLoop.MatchString(src):
		return "", fmt.Errorf("%w: a recursive for loop", ErrUnsafe)
	case rawTag.MatchString(src):
		return "", fmt.Errorf("%w: a raw block, which could hide macros", ErrUnsafe)
	case strings.Contains(src, "__nexttoken_"):
		return "", fmt.Errorf("%w: it names __nexttoken_, which is reserved", ErrUnsafe)
	}
	var b strings.Builder
	last := 0
	for _, m := range macroTag.FindAllStringSubmatchIndex(src, -1) {
		switch {
		case m[2] < 0: // an expression or a comment
			continue
		case src[m[2]:m[3]] == "macro":
			b.WriteString(src[last:m[1]])
			b.WriteString("{{ " + enterName + "() }}")
		default:
			b.WriteString(src[last:m[0]])
			b.WriteString("{{ " + leaveName + "() }}")
			b.WriteString(src[m[0]:m[1]])
		}
		last = m[1]
	}
	b.WriteString(src[last:])
	return b.String(), nil
}

// depthCounter returns the callables guard's expressions call, counting
// the depth of one render.
func depthCounter() (enter, leave jinja.Value) {
	depth := 0
	enter = jinja.NewCallable(enterName, func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
		if depth++; depth > MaxDepth {
			return jinja.Undefined(), fmt.Errorf("%w: macros called more than %d deep", ErrTooLarge, MaxDepth)
		}
		return jinja.NewString(""), nil
	})
	leave = jinja.NewCallable(leaveName, func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
		depth--
		return jinja.NewString(""), nil
	})
	return enter, leave
}
