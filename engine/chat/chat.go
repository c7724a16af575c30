// Package chat renders a model's chat template — the Jinja source a GGUF
// file carries as tokenizer.chat_template — for a conversation, giving the
// prompt llama.cpp's Jinja path gives (common_chat_templates_apply with
// use_jinja, at llama.cpp c392e50, whose engine is minja).
//
// The template engine is github.com/ardanlabs/jinja: pure Go with no
// dependencies, written for the chat templates found in GGUF files and
// tested against them, with the lstrip_blocks and trim_blocks settings
// that Hugging Face and minja render chat templates with. (gonja v2, the
// other maintained Go Jinja, is a general engine with dependencies of
// its own.)
//
// # What the template sees
//
// As in minja: messages (a list of {role, content}; empty content is
// none, as llama.cpp sends it), add_generation_prompt, bos_token and
// eos_token. The rendered prompt loses a leading BOS and a trailing EOS,
// as llama.cpp's apply removes them, since tokenization adds BOS itself.
// Two of minja's polyfills apply, decided as minja decides them by
// rendering probe conversations once, at Compile:
//
//   - a template that drops a system message (Gemma's, Phi-3's) gets it
//     joined to the next user message, "system\nuser", as minja does;
//   - a template that prints only typed content gets each content as one
//     {type: "text", text} part.
//
// Tools, tool calls and tool responses are not part of a Message, so
// minja's polyfills for them never apply.
//
// # Invariants
//
// The same template and messages render the same prompt, forever: the
// template sees no clock. minja defines strftime_now with the wall clock
// (llama.cpp's default); here strftime_now always gives Now, 26 July
// 2024, the date Llama 3's template falls back to without it, so that a
// link opened next year shows the prompt it showed today, and templates
// that call it unconditionally (gpt-oss's) still render.
//
// A template comes from a file someone brings, and the engine has no
// limits of its own: macros may call macros at most MaxDepth deep (see
// guard), Compile refuses a recursive for loop and a source longer than
// MaxTemplate, range gives at most MaxRange numbers, Render refuses a
// prompt longer than MaxPrompt, and a panic inside the engine becomes an
// error. Every error wraps one of the sentinel errors below.
//
// What these cannot bound, without limits inside the engine, which
// ardanlabs/jinja v1.8.0 does not have: a string repeated a huge number
// of times ("x" * 10000000000 allocates it at once), a string doubled
// again and again in a loop, and loops nested deep over long ranges, whose
// time is the product of their lengths. Render the templates of files
// people bring where such a template costs only its own tab or command.
package chat

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ardanlabs/jinja"

	"nexttoken/engine/conversation"
)

// Message is one turn of a conversation (package conversation's, which
// the session and links read without this engine).
type Message = conversation.Message

// Limits on templates and what they render.
const (
	MaxTemplate = 256 << 10 // bytes of template source; real ones are under 20 KB
	MaxPrompt   = 4 << 20   // bytes of rendered prompt
	MaxRange    = 1 << 16   // numbers one call of range gives
)

// The errors every error of this package wraps, for callers to switch on.
var (
	// ErrSyntax: the template is not Jinja this engine reads.
	ErrSyntax = errors.New("the chat template is not valid Jinja")
	// ErrUnsafe: the template uses what could run without end.
	ErrUnsafe = errors.New("the chat template could run without end")
	// ErrRender: rendering failed (the template raised an exception, or
	// used something undefined or of the wrong type).
	ErrRender = errors.New("the chat template failed")
	// ErrTooLarge: a limit above was reached.
	ErrTooLarge = errors.New("the chat template is too large")
)

// Template is a compiled chat template.
type Template struct {
	t *jinja.Template
	// What Compile's probes found, as minja's chat_template_caps.
	systemRole, typedContent bool
}

// Compile reads a template's source and probes what it supports.
func Compile(src string) (*Template, error) {
	if len(src) > MaxTemplate {
		return nil, fmt.Errorf("%w: %d bytes of source, more than %d", ErrTooLarge, len(src), MaxTemplate)
	}
	guarded, err := guard(src)
	if err != nil {
		return nil, err
	}
	t, err := compile(guarded)
	if err != nil {
		return nil, err
	}
	tmpl := &Template{t: t}
	tmpl.probe()
	return tmpl, nil
}

// compile runs the engine's compiler, turning a panic into an error.
func compile(src string) (t *jinja.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("%w: %v", ErrSyntax, r)
		}
	}()
	t, err = jinja.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrSyntax, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "jinja scan: "), "jinja parse: "))
	}
	return t, nil
}

// Probe needles, as minja's.
const (
	userNeedle   = "<User Needle>"
	systemNeedle = "<System Needle>"
)

// probe finds what minja's chat_template constructor finds: whether the
// template needs typed content and whether it prints a system message.
// A probe that fails counts as printing nothing, as in minja.
func (t *Template) probe() {
	plain := []jinja.Value{message("user", userNeedle, false)}
	typed := []jinja.Value{message("user", userNeedle, true)}
	t.typedContent = !strings.Contains(t.tryRender(plain), userNeedle) &&
		strings.Contains(t.tryRender(typed), userNeedle)
	t.systemRole = strings.Contains(t.tryRender([]jinja.Value{
		message("system", systemNeedle, t.typedContent),
		message("user", userNeedle, t.typedContent),
	}), systemNeedle)
}

func (t *Template) tryRender(messages []jinja.Value) string {
	out, err := t.render(messages, "", "", false)
	if err != nil {
		return ""
	}
	return out
}

// Render returns the prompt the template gives messages, with BOS and EOS
// spelt bos and eos, ending with the start of the assistant's turn if
// addGenerationPrompt: what llama.cpp's common_chat_templates_apply
// returns.
func (t *Template) Render(messages []Message, bos, eos string, addGenerationPrompt bool) (string, error) {
	out, err := t.render(t.polyfill(messages), bos, eos, addGenerationPrompt)
	if err != nil {
		return "", err
	}
	if bos != "" {
		out = strings.TrimPrefix(out, bos)
	}
	if eos != "" {
		out = strings.TrimSuffix(out, eos)
	}
	return out, nil
}

// polyfill returns the messages as the template is given them, with
// minja's polyfills for what the template lacks.
func (t *Template) polyfill(messages []Message) []jinja.Value {
	out := make([]jinja.Value, 0, len(messages))
	add := func(role, content string) { out = append(out, message(role, content, t.typedContent)) }
	if t.systemRole {
		for _, m := range messages {
			add(m.Role, m.Content)
		}
		return out
	}
	// minja: system messages wait, joined by new lines, for the next user
	// message, which they start; another role, or the end, sends them on
	// as a user message of their own. An empty content (none) is passed
	// on as it is, leaving them waiting.
	pending := ""
	flush := func() {
		if pending != "" {
			add("user", pending)
			pending = ""
		}
	}
	for _, m := range messages {
		switch {
		case m.Content == "":
		case m.Role == "system":
			if pending != "" {
				pending += "\n"
			}
			pending += m.Content
			continue
		case m.Role == "user" && pending != "":
			add("user", pending+"\n"+m.Content)
			pending = ""
			continue
		case m.Role != "user":
			flush()
		}
		add(m.Role, m.Content)
	}
	flush()
	return out
}

// message is a message as the template sees it: role, then content, none
// if empty, a list of one text part if typed.
func message(role, content string, typed bool) jinja.Value {
	d := jinja.NewDict()
	d.AsDict().Set("role", jinja.NewString(role))
	c := jinja.None()
	switch {
	case content != "" && typed:
		part := jinja.NewDict()
		part.AsDict().Set("type", jinja.NewString("text"))
		part.AsDict().Set("text", jinja.NewString(content))
		c = jinja.NewList([]jinja.Value{part})
	case content != "":
		c = jinja.NewString(content)
	}
	d.AsDict().Set("content", c)
	return d
}

// render runs the template on messages as they are.
func (t *Template) render(messages []jinja.Value, bos, eos string, addGenerationPrompt bool) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%w: %v", ErrRender, r)
		}
	}()
	enter, leave := depthCounter()
	out, err = t.t.RenderValues(map[string]jinja.Value{
		enterName:               enter,
		leaveName:               leave,
		"messages":              jinja.NewList(messages),
		"add_generation_prompt": jinja.NewBool(addGenerationPrompt),
		"bos_token":             jinja.NewString(bos),
		"eos_token":             jinja.NewString(eos),
		"strftime_now":          jinja.NewCallable("strftime_now", strftimeNow), // no clock: see Now
		"range":                 jinja.NewCallable("range", boundedRange),
	})
	switch {
	case errors.Is(err, ErrTooLarge):
		return "", err
	case err != nil:
		return "", fmt.Errorf("%w: %v", ErrRender, err)
	case len(out) > MaxPrompt:
		return "", fmt.Errorf("%w: it rendered %d bytes, more than %d", ErrTooLarge, len(out), MaxPrompt)
	}
	return out, nil
}

// boundedRange is Python's range, refusing more than MaxRange numbers.
func boundedRange(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) < 1 || len(args) > 3 {
		return jinja.Undefined(), fmt.Errorf("range: %d arguments, want 1 to 3", len(args))
	}
	n := make([]int64, len(args))
	for i, a := range args {
		switch {
		case a.IsInt():
			n[i] = a.AsInt()
		case a.IsFloat() && a.AsFloat() == math.Trunc(a.AsFloat()) && math.Abs(a.AsFloat()) < 1<<62:
			n[i] = int64(a.AsFloat()) // 10**9, which the engine computes in floating point
		default:
			return jinja.Undefined(), fmt.Errorf("range: %s is not an integer", a)
		}
	}
	var start, stop, step int64 = 0, n[0], 1
	if len(n) > 1 {
		start, stop = n[0], n[1]
	}
	if len(n) > 2 {
		step = n[2]
	}
	if step == 0 {
		return jinja.Undefined(), errors.New("range: the step is zero")
	}
	count := int64(0)
	if step > 0 && stop > start {
		count = (stop - start + step - 1) / step
	} else if step < 0 && start > stop {
		count = (start - stop - step - 1) / -step
	}
	if count > MaxRange || count < 0 {
		return jinja.Undefined(), fmt.Errorf("%w: range of more than %d numbers", ErrTooLarge, MaxRange)
	}
	items := make([]jinja.Value, count)
	for i := range items {
		items[i] = jinja.NewInt(start + int64(i)*step)
	}
	return jinja.NewList(items), nil
}
