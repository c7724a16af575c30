package catalog_test

import (
	"bytes"
	"net/url"
	"os"
	"strings"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
)

// TestDownloads checks the data of every model known to work: a GGUF
// file's URL at Hugging Face that a link can carry, a size a page reads,
// each field filled, and an architecture the engine runs (a header of it
// alone is not refused for its architecture).
func TestDownloads(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range catalog.Downloads {
		u, err := url.Parse(d.URL)
		if err != nil || modelfile.CheckURL(d.URL) != nil || u.Scheme != "https" || u.Host != "huggingface.co" ||
			!strings.Contains(u.Path, "/resolve/main/") || !strings.HasSuffix(u.Path, ".gguf") {
			t.Errorf("%s: URL %q is not a GGUF file's resolve/main address at Hugging Face", d.Name, d.URL)
		}
		if seen[d.URL] || seen[d.Name] {
			t.Errorf("%s: listed twice", d.Name)
		}
		seen[d.URL], seen[d.Name] = true, true
		if d.Size <= 0 || d.Size > modelfile.MaxFile {
			t.Errorf("%s: %d bytes, more than the %d a page reads", d.Name, d.Size, modelfile.MaxFile)
		}
		if d.Name == "" || d.Arch == "" || d.Format == "" || d.License == "" || d.Shows == "" {
			t.Errorf("%s: a field is empty: %+v", d.Name, d)
		}
		if got, ok := catalog.DownloadAt(d.URL); !ok || got.Name != d.Name {
			t.Errorf("DownloadAt(%q) = %+v, %v", d.URL, got, ok)
		}
		arch, _ := gguf.NewValue(d.Arch)
		var buf bytes.Buffer
		if err := gguf.Write(&buf, gguf.Metadata{{Key: "general.architecture", Value: arch}}, nil); err != nil {
			t.Fatal(err)
		}
		r, err := modelfile.Preflight(d.Name, buf.Bytes(), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.String(), `architecture "`+d.Arch+`" is not supported`) {
			t.Errorf("%s: the engine refuses its architecture %s", d.Name, d.Arch)
		}
	}
	if _, ok := catalog.DownloadAt("https://huggingface.co/x/resolve/main/y.gguf"); ok {
		t.Error("DownloadAt found a model not in the list")
	}
}

// TestDownloadsDocumented checks that docs/playground.md lists every model
// known to work, with its URL.
func TestDownloadsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/playground.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range catalog.Downloads {
		if !bytes.Contains(doc, []byte(d.URL)) {
			t.Errorf("docs/playground.md does not list %s (%s)", d.Name, d.URL)
		}
	}
}
