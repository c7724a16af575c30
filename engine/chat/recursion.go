package chat

import (
	"fmt"
	"regexp"
	"slices"
)

// The engine recurses in Go for each call of a macro, and a Go stack that
// overflows ends the program rather than panicking: a template that can
// call a macro from inside itself must be refused before it runs. The
// check reads the source, not the engine's syntax tree, which it keeps to
// itself; it is conservative: a macro's name anywhere (in a string too)
// counts as a use of the macro.
var (
	macroTag      = regexp.MustCompile(`\{%[-+]?\s*(macro\s+([A-Za-z_][A-Za-z0-9_]*)|endmacro)\b`)
	recursiveLoop = regexp.MustCompile(`\{%[-+]?\s*for\b(?:[^%]|%[^}])*\brecursive\b`)
	identifier    = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// checkRecursion refuses a for loop marked recursive (whose loop() can
// feed a one-character string to itself for ever), a macro used other
// than by calling it (a value a macro could call under another name), and
// macros that can call one another in a cycle.
func checkRecursion(src string) error {
	if recursiveLoop.MatchString(src) {
		return fmt.Errorf("%w: a recursive for loop", ErrUnsafe)
	}
	type macro struct {
		name       string
		start, end int // the body, between the tags
	}
	var macros, open []macro
	for _, m := range macroTag.FindAllStringSubmatchIndex(src, -1) {
		if m[4] >= 0 {
			open = append(open, macro{name: src[m[4]:m[5]], start: m[1]})
			continue
		}
		if len(open) == 0 {
			continue // the engine reports it
		}
		last := open[len(open)-1]
		open = open[:len(open)-1]
		last.end = m[0]
		macros = append(macros, last)
	}
	index := map[string]int{}
	for i, m := range macros {
		index[m.name] = i
	}
	// calls[i] are the macros named in macro i's body.
	calls := make([][]int, len(macros))
	for _, loc := range identifier.FindAllStringIndex(src, -1) {
		j, ok := index[src[loc[0]:loc[1]]]
		if !ok || isDefinition(src, loc[0]) {
			continue
		}
		if !isCall(src, loc[1]) {
			return fmt.Errorf("%w: macro %s is used other than by calling it", ErrUnsafe, macros[j].name)
		}
		for i, m := range macros {
			if m.start <= loc[0] && loc[1] <= m.end {
				calls[i] = append(calls[i], j)
			}
		}
	}
	// A depth-first search for a cycle: state 1 on the path, 2 done.
	state := make([]int, len(macros))
	var visit func(i int) error
	visit = func(i int) error {
		state[i] = 1
		for _, j := range calls[i] {
			switch state[j] {
			case 1:
				return fmt.Errorf("%w: macro %s can call itself", ErrUnsafe, macros[j].name)
			case 0:
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		state[i] = 2
		return nil
	}
	for i := range macros {
		if state[i] == 0 {
			if err := visit(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// isDefinition reports whether the identifier at i follows "macro ".
func isDefinition(src string, i int) bool {
	j := i
	for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t' || src[j-1] == '\n') {
		j--
	}
	return j < i && j >= 5 && src[j-5:j] == "macro" && (j == 5 || !slices.Contains([]byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"), src[j-6]))
}

// isCall reports whether an identifier ending at i is followed by "(".
func isCall(src string, i int) bool {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n') {
		i++
	}
	return i < len(src) && src[i] == '('
}
