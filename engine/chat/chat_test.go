package chat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readJSON decodes testdata/name into v.
func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// compileFile compiles testdata/name.jinja.
func compileFile(t *testing.T, name string) *Template {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name+".jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := Compile(string(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tmpl
}

// templates are the rows of testdata/templates.tsv: a template's name and
// the BOS and EOS its model spells.
func templates(t *testing.T) [][3]string {
	t.Helper()
	data, err := os.ReadFile("testdata/templates.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][3]string
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 3 {
			t.Fatalf("templates.tsv: %q is not three fields", line)
		}
		rows = append(rows, [3]string{f[0], f[1], f[2]})
	}
	return rows
}

// TestRenderMatchesLlamaCpp renders the real templates of testdata for
// every conversation, with and without the generation prompt, and
// expects what llama.cpp's common_chat_templates_apply rendered
// (testdata/regenerate.sh), byte for byte.
func TestRenderMatchesLlamaCpp(t *testing.T) {
	convs, err := filepath.Glob("testdata/conversations/*.json")
	if err != nil || len(convs) == 0 {
		t.Fatalf("no conversations: %v", err)
	}
	for _, row := range templates(t) {
		name, bos, eos := row[0], row[1], row[2]
		tmpl := compileFile(t, name)
		for _, conv := range convs {
			var messages []Message
			readJSON(t, "conversations/"+filepath.Base(conv), &messages)
			base := strings.TrimSuffix(filepath.Base(conv), ".json")
			for _, gen := range []bool{true, false} {
				want := filepath.Join("testdata/expected", name, base+".nogen.txt")
				if gen {
					want = filepath.Join("testdata/expected", name, base+".gen.txt")
				}
				expected, err := os.ReadFile(want)
				if err != nil {
					t.Fatal(err)
				}
				got, err := tmpl.Render(messages, bos, eos, gen)
				if err != nil {
					t.Errorf("%s %s gen=%v: %v", name, base, gen, err)
					continue
				}
				if got != string(expected) {
					t.Errorf("%s %s gen=%v:\n got %q\nwant %q", name, base, gen, got, expected)
				}
			}
		}
	}
}

// TestLlamaCppTestCases renders the Jinja cases of llama.cpp's
// tests/test-chat-template.cpp and expects its expected strings.
func TestLlamaCppTestCases(t *testing.T) {
	var doc struct {
		Messages []Message
		Cases    []struct{ Name, Template, BOS, EOS, Expected string }
	}
	readJSON(t, "test-chat-template.json", &doc)
	if len(doc.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range doc.Cases {
		tmpl, err := Compile(c.Template)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		got, err := tmpl.Render(doc.Messages, c.BOS, c.EOS, true)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if got != c.Expected {
			t.Errorf("%s:\n got %q\nwant %q", c.Name, got, c.Expected)
		}
	}
}
