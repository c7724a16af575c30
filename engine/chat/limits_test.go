package chat

import (
	"errors"
	"strings"
	"testing"

	"github.com/ardanlabs/jinja"
)

// TestNoClock: strftime_now gives 26 July 2024, whatever the day, so
// that Llama 3.2's template writes the date it writes without a clock.
func TestNoClock(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`{{ strftime_now("%d %b %Y") }}`, "26 Jul 2024"},
		{`{{ strftime_now("%Y-%m-%d") }}`, "2024-07-26"},
		{`{{ strftime_now("%A %B %e, %j, %H:%M:%S %p %Z %z %y %a %I %% %h") }}`, "Friday July 26, 208, 00:00:00 AM UTC +0000 24 Fri 12 % Jul"},
	} {
		tmpl, err := Compile(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, err := tmpl.Render(nil, "", "", false)
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.src, got, err, c.want)
		}
	}
	for _, src := range []string{`{{ strftime_now("%Q") }}`, `{{ strftime_now() }}`, `{{ strftime_now(1) }}`} {
		tmpl, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tmpl.Render(nil, "", "", false); !errors.Is(err, ErrRender) {
			t.Errorf("%s: %v, want ErrRender", src, err)
		}
	}
	llama := compileFile(t, "llama-3.2-instruct")
	got, err := llama.Render([]Message{{Role: "user", Content: "Hi"}}, "<|begin_of_text|>", "<|eot_id|>", true)
	if err != nil || !strings.Contains(got, "Today Date: 26 Jul 2024\n") {
		t.Errorf("Llama 3.2: %q, %v; want Today Date: 26 Jul 2024", got, err)
	}
}

// TestHostileTemplates: what could run without end, or panic, is an
// error of the kind it is.
func TestHostileTemplates(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      error
		compile   bool // the error comes from Compile
	}{
		{"huge range", `{% for i in range(10**9) %}x{% endfor %}`, ErrTooLarge, false},
		{"float range", `{{ range(2**2) | join(",") }}{{ range(1.5) }}`, ErrRender, false},
		{"huge integer range", `{% for i in range(1000000000) %}x{% endfor %}`, ErrTooLarge, false},
		{"range of a string", `{{ range("9") }}`, ErrRender, false},
		{"zero step", `{{ range(1, 5, 0) }}`, ErrRender, false},
		{"extreme range", `{{ range(-9223372036854775807, 9223372036854775807) }}`, ErrTooLarge, false},
		{"long prompt", `{% for i in range(60000) %}{{ "x" * 100 }}{% endfor %}`, ErrTooLarge, false},
		{"negative repeat", `{{ "x" * -1 }}`, ErrRender, false},
		{"recursive macro", `{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}`, ErrTooLarge, false},
		{"mutual recursion", "{% macro a() %}{{ b() }}{% endmacro %}\n{%- macro b() -%}{{ a( ) }}{% endmacro %}{{ a() }}", ErrTooLarge, false},
		{"macro as a value", `{% macro f() %}{{ g() }}{% endmacro %}{% set g = f %}{{ f() }}`, ErrTooLarge, false},
		{"caller", `{% macro f() %}{{ caller() }}{% endmacro %}{% macro g() %}{% call f() %}{{ g() }}{% endcall %}{% endmacro %}{{ g() }}`, ErrTooLarge, false},
		{"recursive loop", `{% for c in "ab" recursive %}{{ loop(c) }}{% endfor %}`, ErrUnsafe, true},
		{"raw block", `{% raw %}{% macro f() %}{% endraw %}`, ErrUnsafe, true},
		{"reserved name", `{{ __nexttoken_enter() }}`, ErrUnsafe, true},
		{"raise", `{{ raise_exception("no system role") }}`, ErrRender, false},
		{"syntax", `{% if %}`, ErrSyntax, true},
		{"unclosed", `{{ x `, ErrSyntax, true},
		{"too long", strings.Repeat("x", MaxTemplate+1), ErrTooLarge, true},
	} {
		tmpl, err := Compile(c.src)
		if err == nil {
			if c.compile {
				t.Errorf("%s: compiled", c.name)
				continue
			}
			_, err = tmpl.Render([]Message{{Role: "user", Content: "Hi"}}, "", "", true)
		} else if !c.compile {
			t.Errorf("%s: Compile: %v", c.name, err)
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v; want %v", c.name, err, c.want)
		}
	}
}

// TestMacros: macros that call macros, recursion that ends, and the
// deepest nesting allowed render as the engine renders them without the
// depth guard, whatever the whitespace control around the macro tags.
func TestMacros(t *testing.T) {
	for _, src := range []string{
		`{% macro b(x) %}[{{ x }}]{% endmacro %}{% macro a(x) %}{{ b(x) }}{{ ab }}{% endmacro %}{{ a("y") }}{{ b("z") }}`,
		"{% macro f(n) %}\n  {%- if n > 0 %}({{ f(n - 1) }}){% endif %}\n{% endmacro %}\n{{ f(3) }}",
		"{%- macro f(n) -%}\n  {{ n }}\n  {%- if n > 0 -%} {{ f(n - 1) }} {%- endif %}\n  {%- endmacro -%}\n{{ f(255) }}",
		"  {% macro f(x) %}\n    {{ x }}\n  {% endmacro %}\n{{ f(1) }}|{{ f(2) }}",
		"{% macro f(x) %}\n\n  {{ x }}  \n\n{% endmacro %}\n{% macro g() -%}  {{ caller() }}  {%- endmacro %}{% call g() %} {{ f(7) }} {% endcall %}",
		`{{ "{% macro f() %}" }}{# {% endmacro %} #}{% macro g() %}{{ "{% endmacro %}" }}{% endmacro %}{{ g() }}`,
		"{% macro f(d) %}{% for k, v in d.items() %}{{ k }}:{% if v is mapping %}{ {{- f(v) -}} }{% else %}{{ v }}{% endif %},{% endfor %}{% endmacro %}{{ f({'a': {'b': {'c': 1} }, 'd': 2}) }}",
	} {
		plain, err := jinja.Compile(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		want, err := plain.Render(map[string]any{})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		tmpl, err := Compile(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got, err := tmpl.Render(nil, "", "", false); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", src, got, err, want)
		}
	}
}

// TestEndOfTurn finds the token each template writes after a reply.
func TestEndOfTurn(t *testing.T) {
	specials := []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
		"<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>", "<s>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>",
		"<|startoftext|>", "<|return|>", "<|start|>", "<|message|>", "<|channel|>"}
	for _, row := range templates(t) {
		name, bos, eos := row[0], row[1], row[2]
		want := map[string]string{
			"qwen2.5-instruct": "<|im_end|>", "llama-3.2-instruct": "<|eot_id|>", "gemma-2-it": "<end_of_turn>",
			"gemma-3-it": "<end_of_turn>", "phi-3.5-mini-instruct": "<|end|>",
			"gpt-oss-20b": "<|return|>", "hermes-3-tool-use": "<|im_end|>",
		}[name]
		if got, err := compileFile(t, name).EndOfTurn(specials, bos, eos); got != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
		if !EndsGeneration(want) && want != eos {
			t.Errorf("%s: %q does not end generation", name, want)
		}
	}
	// A template that ends a reply with EOS, as Mistral's does.
	tmpl, err := Compile(`{% for m in messages %}{{ m.content }}{% if m.role == "assistant" %}{{ eos_token }}{% endif %}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tmpl.EndOfTurn(nil, "<s>", "</s>"); got != "</s>" || err != nil {
		t.Errorf("EOS template: %q, %v; want </s>", got, err)
	}
	// A reply followed by a special token that does not end generation.
	tmpl, err = Compile(`{% for m in messages %}<|im_start|>{{ m.content }}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tmpl.EndOfTurn([]string{"<|im_start|>"}, "", ""); got != "" || err != nil {
		t.Errorf("<|im_start|> after the reply: %q, %v; want none", got, err)
	}
	// A template that fails on a reply: its error.
	tmpl, err = Compile(`{% for m in messages %}{% if m.role == "assistant" %}{{ raise_exception("no replies") }}{% endif %}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tmpl.EndOfTurn(nil, "", ""); got != "" || err == nil || !strings.Contains(err.Error(), "no replies") {
		t.Errorf("a template that fails on a reply: %q, %v; want its error", got, err)
	}
	if EndsGeneration("<start_of_turn>") {
		t.Error("<start_of_turn> ends generation")
	}
}

// FuzzRender compiles and renders any template: an error or a prompt,
// never a panic or a hang.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		`{% for m in messages %}{{ m.role }}: {{ m.content }}{% endfor %}`,
		`{{ bos_token }}{% if add_generation_prompt %}go{% endif %}{{ eos_token }}`,
		`{% set x = namespace(a=1) %}{{ x.a | string | trim }}`,
		`{{ messages | tojson }}`,
	} {
		f.Add(s, "hello")
	}
	f.Fuzz(func(t *testing.T, src, content string) {
		tmpl, err := Compile(src)
		if err != nil {
			return
		}
		out, err := tmpl.Render([]Message{{Role: "system", Content: content}, {Role: "user", Content: content}}, "<s>", "</s>", true)
		if err == nil && len(out) > MaxPrompt {
			t.Errorf("%d bytes rendered", len(out))
		}
	})
}

// TestRange is Python's range, as the engine's own is.
func TestRange(t *testing.T) {
	for src, want := range map[string]string{
		`{{ range(4) | join(",") }}`:        "0,1,2,3",
		`{{ range(2**2) | join(",") }}`:     "0,1,2,3",
		`{{ range(1, 10, 3) | join(",") }}`: "1,4,7",
		`{{ range(5, 0, -2) | join(",") }}`: "5,3,1",
		`{{ range(0) | length }}`:           "0",
		`{{ range(3, 1) | length }}`:        "0",
		`{{ range(65536) | length }}`:       "65536",
	} {
		tmpl, err := Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got, err := tmpl.Render(nil, "", "", false); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", src, got, err, want)
		}
	}
}
