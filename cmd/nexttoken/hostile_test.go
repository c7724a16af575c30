//go:build unix

package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/checkpoint"
)

// sparseGGUF writes a GGUF file of size bytes, sparse, so that it costs no
// disk: head, then zeros.
func sparseGGUF(t *testing.T, name string, size int64, head []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, head, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// ggufHead is the start of a GGUF file: the magic, version 3, the counts,
// then more.
func ggufHead(tensors, kvs uint64, more ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32([]byte("GGUF"), 3)
	b = binary.LittleEndian.AppendUint64(b, tensors)
	b = binary.LittleEndian.AppendUint64(b, kvs)
	for _, m := range more {
		b = append(b, m...)
	}
	return b
}

// arrayHead is a GGUF file's start whose one value, k, is an array of n
// elements of type elem.
func arrayHead(elem uint32, n uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, 1)
	b = append(b, 'k')
	b = binary.LittleEndian.AppendUint32(b, 9) // an array
	b = binary.LittleEndian.AppendUint32(b, elem)
	b = binary.LittleEndian.AppendUint64(b, n)
	return ggufHead(0, 1, b)
}

// TestHostileFiles gives inspect, trace and tokenize what is not a model
// file: a directory, a named pipe with no writer (which must not block), a
// device, and sparse GGUF files of 1 and 2 GiB whose headers claim the most
// entries their size allows. Each is refused in one line naming the
// problem, the count for a sparse file.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.gguf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	type file struct{ path, want string }
	files := []file{
		{dir, dir + " is a directory, not a regular file"},
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "/dev/zero is a device, not a regular file"},
	}
	const stringType, arrayType = 8, 9
	for _, size := range []int64{1 << 30, 2 << 30} {
		n := (size - 24) / 13
		files = append(files, file{sparseGGUF(t, fmt.Sprintf("kv%d.gguf", size), size, ggufHead(0, uint64(n))),
			fmt.Sprintf("the metadata count is %d, more than the 65536 keys a file may have", n)})
		n = (size - 24) / 32
		files = append(files, file{sparseGGUF(t, fmt.Sprintf("tensors%d.gguf", size), size, ggufHead(uint64(n), 0)),
			fmt.Sprintf("the tensor count is %d, more than the 65536 tensors a file may have", n)})
		n = (size - 49) / 8
		files = append(files, file{sparseGGUF(t, fmt.Sprintf("strings%d.gguf", size), size, arrayHead(stringType, uint64(n))),
			fmt.Sprintf("the length of k is %d, more than the 4194304 elements left", n)})
		n = (size - 49) / 12
		files = append(files, file{sparseGGUF(t, fmt.Sprintf("arrays%d.gguf", size), size, arrayHead(arrayType, uint64(n))),
			fmt.Sprintf("the length of k is %d, more than the 4194304 elements left", n)})
	}
	for _, f := range files {
		for _, args := range [][]string{
			{"inspect", f.path},
			{"trace", "--model=" + f.path},
			{"tokenize", "--tokenizer=" + f.path},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				failsInOneLine(t, args, f.want)
			})
		}
	}
	t.Run("trace --tokenizer=FIFO", func(t *testing.T) {
		failsInOneLine(t, []string{"trace", "--model=" + stories260KFile, "--tokenizer=" + fifo}, "tokenizer "+fifo+": "+fifo+" is a named pipe (FIFO)")
	})
	t.Run("trace --prompt-file=FIFO", func(t *testing.T) {
		failsInOneLine(t, []string{"trace", "--prompt-file=" + fifo}, fifo+" is a named pipe (FIFO)")
	})
}

// TestWebFolderPipe puts a named pipe with no writer in the web folder:
// serve and export refuse to start, naming it, rather than block reading
// it; one made once the server runs is not there, rather than a request
// that never ends.
func TestWebFolderPipe(t *testing.T) {
	dir := testWebDir(t)
	fifo := filepath.Join(dir, "models", "pipe.bin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	want := fifo + " is a named pipe (FIFO), not a regular file: the web folder holds only files and folders (remove it)"
	if _, err := newServer(dir); err == nil || err.Error() != want {
		t.Errorf("serve: error %v, want %q", err, want)
	}
	failsInOneLine(t, []string{"export", "--web=" + dir, filepath.Join(t.TempDir(), "site")}, want)

	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	h, err := newServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if code := get(h, "/web/models/pipe.bin", "").StatusCode; code != 404 {
		t.Errorf("a named pipe made after the start: status %d, want 404", code)
	}
}

// TestModelFileSparse chooses, in the page, a sparse GGUF file of 1 GiB,
// the most the page reads, whose header claims the most metadata keys its
// size allows: the page refuses it from its header, by that count, and
// stays usable, a step away from the next token.
func TestModelFileSparse(t *testing.T) {
	const size = 1 << 30
	n := (size - 24) / 13
	path := sparseGGUF(t, "sparse.gguf", size, ggufHead(0, uint64(n)))
	tab := openPage(t, "/")
	waitFor(tab, `document.querySelector("#tokens")?.textContent.length > 0`)
	before := evaluate[int](tab, `document.querySelectorAll("#tokens .tok.gen").length`)
	must(tab, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{path}))
	waitFor(tab, `document.querySelector("#file-status")?.textContent.includes(`+
		jsString(fmt.Sprintf("sparse.gguf: gguf: the metadata count is %d, more than the 65536 keys a file may have", n))+`)`)
	click(tab, "#step")
	waitFor(tab, fmt.Sprintf(`document.querySelectorAll("#tokens .tok.gen").length === %d`, before+1))
}

// cancelOnWrite is a standard error that ends a context at its first
// write, as Ctrl-C would once the first report is out.
type cancelOnWrite struct {
	strings.Builder
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(b []byte) (int, error) {
	w.cancel()
	return w.Builder.Write(b)
}

// TestTracePrefillProgress prefills a long prompt: trace reports on
// standard error as the prefill goes, and stops, saying where, when its
// context ends (Ctrl-C) during the prefill or between steps.
func TestTracePrefillProgress(t *testing.T) {
	defer func(was time.Duration) { progressEvery = was }(progressEvery)
	progressEvery = 0
	prompt := "--prompt=" + strings.Repeat("Once upon a time ", 40)
	args := []string{"--model=stories260K", prompt, "--steps=2"}
	var stdout, stderr strings.Builder
	if err := traceUntil(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	n := 162 // BOS and the prompt's tokens
	want := fmt.Sprintf("prefill: 64 of %d prompt tokens, 0 s (Ctrl-C stops)\nprefill: 128 of %[1]d prompt tokens, 0 s (Ctrl-C stops)\n", n)
	if got := regexp.MustCompile(`\d+ s \(`).ReplaceAllString(stderr.String(), "0 s ("); got != want {
		t.Errorf("standard error:\n%s\nwant\n%s", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelOnWrite{cancel: cancel}
	err := traceUntil(ctx, args, &stdout, w)
	// The prefill reads Ctrl-C at its next report: within the chunk after
	// the first (64 done) when a slice of time passes in it, else after it.
	stopped := regexp.MustCompile(fmt.Sprintf(`^trace: interrupted during the prompt's prefill, after (64|128) of its %d tokens$`, n))
	if err == nil || !stopped.MatchString(err.Error()) {
		t.Errorf("Ctrl-C during the prefill: error %v, want %v", err, stopped)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	err = traceUntil(ctx, []string{workedLogits, "--steps=1"}, &stdout, &stderr)
	if want := "trace: interrupted after 0 of 1 steps"; err == nil || err.Error() != want {
		t.Errorf("Ctrl-C before a step: error %v, want %q", err, want)
	}
}

// TestPrefillProgressPrints: trace's prefill progress prints a count
// once, when it has moved on. The session also asks within a chunk, with
// the count of the chunk before (0 before the first).
func TestPrefillProgressPrints(t *testing.T) {
	defer func(was time.Duration) { progressEvery = was }(progressEvery)
	progressEvery = 0
	var out strings.Builder
	progress := prefillProgress(context.Background(), &out)
	for _, done := range []int{0, 64, 64, 128, 128, 162} {
		if err := progress(done, 162); err != nil {
			t.Fatal(err)
		}
	}
	want := "prefill: 64 of 162 prompt tokens, 0 s (Ctrl-C stops)\nprefill: 128 of 162 prompt tokens, 0 s (Ctrl-C stops)\n"
	if got := out.String(); got != want {
		t.Errorf("printed:\n%s\nwant\n%s", got, want)
	}
}

// openLongContextModel opens a page on a random model of 4 layers of 128
// and a context of 4096 tokens, from a file, on which a prompt of
// thousands of characters takes seconds to prefill.
func openLongContextModel(t *testing.T) context.Context {
	t.Helper()
	c := checkpoint.Config{Dim: 128, HiddenDim: 384, Layers: 4, Heads: 4, KVHeads: 4, VocabSize: 512, SeqLen: 4096, SharedHead: true}
	path := writeRandomGGUF(t, c, 1, "F32", "long.gguf")
	tab := openPage(t, "/")
	must(tab, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{path}))
	waitFor(tab, `document.querySelector("#model").selectedOptions[0]?.textContent === "long.gguf (your files)"`)
	return tab
}

// TestPagePrefillNotice opens, in the page, a random model of 4 layers of
// 128 and a context of 4096 tokens, then types a prompt of 2,500
// characters, whose prefill takes seconds (each position reads all those
// before it): the page says how far the prefill has come while it runs,
// and takes the notice away once it is done.
func TestPagePrefillNotice(t *testing.T) {
	tab := openLongContextModel(t)
	// The notice comes and goes while the page's thread is busy: an
	// observer notes each text it shows.
	evaluate[bool](tab, `window.notices = [];
		new MutationObserver(() => {
			const n = document.querySelector("#prefill-notice .prefill-progress");
			if (n) window.notices.push(n.textContent);
		}).observe(document.body, {childList: true, subtree: true, characterData: true});
		true`)
	setInput(tab, "#prompt", strings.Repeat("a", 2500))
	waitWithin(tab, `document.querySelector("#tokens .tok:last-child")?.textContent.length > 0 &&
		document.querySelectorAll("#tokens .tok").length > 1000`, 2*time.Minute)
	notices := evaluate[[]string](tab, `window.notices`)
	t.Logf("%d notices, the last %q", len(notices), notices[max(len(notices)-1, 0):])
	if len(notices) == 0 || !regexp.MustCompile(`^Reading the prompt: [\d,]+ of [\d,]+ tokens(, [\d,.]+ a second)?…$`).MatchString(notices[len(notices)-1]) {
		t.Errorf("the notices shown: %q", notices)
	}
	if evaluate[bool](tab, `document.querySelector("#prefill-notice") !== null`) {
		t.Error("the notice stays once the prefill is done")
	}
}

// TestPagePrefillStop types the long prompt of TestPagePrefillNotice and
// presses the notice's Stop: the prefill stops at its next chunk, the
// notice goes, the prompt's field says why, and the session before it
// stays.
func TestPagePrefillStop(t *testing.T) {
	tab := openLongContextModel(t)
	before := evaluate[int](tab, `document.querySelectorAll("#tokens .tok").length`)
	// The page's thread is busy but for a millisecond a chunk: a script
	// the notice's arrival starts presses Stop in one of them.
	// It notes when it pressed and when the notice went, for the log.
	evaluate[bool](tab, `window.pressed = false;
		new MutationObserver((_, o) => {
			const stop = document.querySelector("#prefill-notice button");
			if (stop) {
				o.disconnect(); stop.click(); window.pressed = performance.now();
				new MutationObserver((_, o) => {
					if (!document.querySelector("#prefill-notice")) { o.disconnect(); window.gone = performance.now(); }
				}).observe(document.body, {childList: true, subtree: true});
			}
		}).observe(document.body, {childList: true, subtree: true});
		true`)
	setInput(tab, "#prompt", strings.Repeat("a", 2500))
	waitWithin(tab, `window.pressed && document.querySelector("#prefill-notice") === null &&
		/you stopped it/.test(document.querySelector("#prompt-error")?.textContent ?? "")`, 2*time.Minute)
	t.Logf("Stop pressed → the notice gone: %.0f ms", evaluate[float64](tab, `window.gone - window.pressed`))
	if after := evaluate[int](tab, `document.querySelectorAll("#tokens .tok").length`); after != before {
		t.Errorf("the prompt's tokens went from %d to %d: the stopped prompt replaced the session", before, after)
	}
}
