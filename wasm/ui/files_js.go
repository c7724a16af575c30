//go:build js

package ui

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
	"nexttoken/wasm/jsx"
)

// fileList is a FileList the reader gave: picked in a file field or
// dropped on the page.
type fileList struct{ v safejs.Value }

// pickedFiles is the files chosen in the file field with the given id.
func pickedFiles(id string) (fileList, error) {
	doc, err := global("document")
	if err != nil {
		return fileList{}, err
	}
	input, err := doc.Call("getElementById", id)
	if err != nil || !jsx.Truthy(input) {
		return fileList{}, fmt.Errorf("no file field %s", id)
	}
	files, err := input.Get("files")
	return fileList{files}, err
}

// onFileDrop calls f with the files dropped anywhere on the page. A drop's
// files can be read only while the browser dispatches it, so they are
// taken here rather than in a go-app handler, which runs later.
func onFileDrop(f func(fileList)) error {
	win := safejs.Global()
	over, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 && carriesFiles(args[0]) {
			_, _ = args[0].Call("preventDefault") // or the browser opens the file itself
		}
		return nil
	})
	if err != nil {
		return err
	}
	drop, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) == 0 || !carriesFiles(args[0]) {
			return nil
		}
		_, _ = args[0].Call("preventDefault")
		dt, _ := args[0].Get("dataTransfer")
		files, err := dt.Get("files")
		if err == nil {
			go f(fileList{files})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := win.Call("addEventListener", "dragover", over.Value()); err != nil {
		return err
	}
	_, err = win.Call("addEventListener", "drop", drop.Value())
	return err
}

// carriesFiles reports whether a drag event carries files, not text or an
// element of the page (the compare card's stages are dragged too).
func carriesFiles(event safejs.Value) bool {
	dt, err := event.Get("dataTransfer")
	if err != nil || !jsx.Truthy(dt) {
		return false
	}
	types, err := dt.Get("types")
	if err != nil {
		return false
	}
	has, err := types.Call("includes", "Files")
	return err == nil && jsx.Truthy(has)
}

// readFiles reads every file of list into memory, once their total size
// is known to be at most limit and each GGUF file's header has been read
// and checked on its own (checkFileHead). A worker (web/digest.js, at
// script) reads the files, once, while the page checks their headers: it
// hands the page each chunk as it is read, which the page copies into Go
// (at once, once the headers are checked) and hands back, and the worker
// keeps the files whole for the browser's SHA-256 (the Hash), which it
// computes off the page's thread when asked. So the copy into Go goes on
// while the browser reads, and the hash while the page opens the model
// and runs its session. Where the worker does not run,
// the page reads the files itself and Go hashes them.
func readFiles(list fileList, limit int64, script string) ([]modelfile.File, modelfile.Hash, error) {
	n, err := jsx.Int(list.v, "length")
	if err != nil {
		return nil, nil, err
	}
	files := make([]any, n) // the File objects
	sizes := make([]int, n)
	var total int64
	for i := range files {
		f, err := list.v.Call("item", i)
		if err != nil {
			return nil, nil, err
		}
		files[i] = f
		if sizes[i], err = jsx.Int(f, "size"); err != nil {
			return nil, nil, err
		}
		total += int64(sizes[i])
	}
	if total > limit {
		return nil, nil, fmt.Errorf("the files have %s; the page holds models of at most %s: a WebAssembly program has at most 4 GiB, and a file is read whole before its weights are decoded",
			byteSize(int(total)), byteSize(int(limit)))
	}
	out := make([]modelfile.File, n)
	// Chunks that come before the heads are checked wait for them: a file
	// the page refuses takes none of Go's memory, which it never gives back.
	var waiting []fileChunk
	var w *digest
	take := func(c fileChunk) error {
		if c.file < 0 || c.file >= n {
			return fmt.Errorf("a chunk of file %d of %d", c.file, n)
		}
		if out[c.file].Data == nil {
			waiting = append(waiting, c)
			return nil
		}
		part, err := jsx.New("Uint8Array", c.bytes)
		if err != nil {
			return err
		}
		got, err := jsx.Int(part, "length")
		if err != nil || c.at < 0 || got > sizes[c.file]-c.at {
			return fmt.Errorf("%d bytes at %d of a file of %d", got, c.at, sizes[c.file])
		}
		if _, err := safejs.CopyBytesToGo(out[c.file].Data[c.at:c.at+got], part); err != nil {
			return err
		}
		// Moved back, for the worker's hash.
		w.post(map[string]any{"file": c.file, "at": c.at, "back": c.bytes}, []any{c.bytes})
		return nil
	}
	w = readWhole(script, files, take)
	for i, f := range files {
		name, _ := f.(safejs.Value).Get("name")
		out[i].Name, _ = name.String()
		if out[i].Head, err = checkFileHead(f.(safejs.Value), out[i].Name); err != nil {
			w.stop()
			return nil, nil, err
		}
	}
	mark("nexttoken:heads-checked")
	for i := range out {
		out[i].Data = make([]byte, sizes[i])
	}
	for _, c := range waiting {
		if err := take(c); err != nil {
			w.stop()
			return nil, nil, fmt.Errorf("the files could not be read: %w", err)
		}
	}
	waiting = nil
	read := <-w.done
	mark("nexttoken:bytes-read") // the files' bytes in the browser, and in Go
	if read.broken != nil {
		// No worker: the page reads the files, and Go hashes them.
		w.stop()
		for i, f := range files {
			if err := readFile(f.(safejs.Value), out[i].Data); err != nil {
				return nil, nil, fmt.Errorf("%s could not be read: %w", out[i].Name, err)
			}
		}
		mark("nexttoken:bytes-copied")
		return out, goHashes(out), nil
	}
	if read.err != nil {
		w.stop()
		return nil, nil, fmt.Errorf("the files could not be read: %w", read.err)
	}
	// The worker hashes the files in the order the model's Ref names them.
	// The page's lack of crypto.subtle says the worker has none either (a
	// page on neither https nor localhost); files that are not one model
	// are refused before their hash is asked for.
	order, err := modelfile.Order(out...)
	if _, noDigest := global("crypto", "subtle"); noDigest != nil || err != nil {
		w.stop()
		return out, goHashes(out), nil
	}
	asks := make([]any, len(order))
	for i, j := range order {
		asks[i] = j
	}
	w.post(map[string]any{"hash": asks}, nil)
	hash := func(asked []int) ([]byte, error) {
		mark("nexttoken:hash-asked")
		if !slices.Equal(asked, order) {
			w.stop()
			return goHashes(out)(asked) // not the order the worker was asked for
		}
		return digested(w)(asked)
	}
	return out, hash, nil
}

// goHashes is the Hash of files the browser does not hash: Go's SHA-256
// of them, a piece at a time, letting the page's other tasks run between
// pieces, as the session on the model runs meanwhile (a gigabyte takes
// seconds in WebAssembly).
func goHashes(files []modelfile.File) modelfile.Hash {
	return func(order []int) ([]byte, error) {
		mark("nexttoken:no-digest")
		h := sha256.New()
		for _, i := range order {
			for data := files[i].Data; len(data) > 0; {
				n := min(len(data), hashPiece)
				h.Write(data[:n])
				data = data[n:]
				yield()
			}
		}
		return h.Sum(nil), nil
	}
}

// hashPiece is how much goHashes hashes between two turns of the page's
// other tasks: about 30 ms in WebAssembly.
const hashPiece = 4 << 20

// readChunk is how much of a file readFile asks the browser for at a
// time.
const readChunk = 16 << 20

// readFile reads a File into data, its size, a chunk at a time, asking
// for the next chunk before copying one in, so that the browser reads
// while Go copies.
func readFile(f safejs.Value, data []byte) error {
	size := len(data)
	read := func(from int) (safejs.Value, error) {
		part, err := f.Call("slice", from, min(from+readChunk, size))
		if err != nil {
			return part, err
		}
		return part.Call("arrayBuffer")
	}
	next, nextErr := read(0)
	for from := 0; from < size; from += readChunk {
		buf, err := jsx.Await(next, nextErr)
		if err != nil {
			return err
		}
		if from+readChunk < size {
			next, nextErr = read(from + readChunk)
		}
		part, err := jsx.New("Uint8Array", buf)
		if err != nil {
			return err
		}
		n, err := safejs.CopyBytesToGo(data[from:], part)
		if err != nil {
			return err
		}
		if want := min(readChunk, size-from); n != want {
			return fmt.Errorf("%d bytes at %d, not %d", n, from, want)
		}
	}
	return nil
}

// startDigest starts the browser's SHA-256 of data, an ArrayBuffer, in a
// worker of its own running script (web/digest.js). The ArrayBuffer is
// moved to the worker when move is set: it is then empty here. The sum
// fails where the page has no crypto.subtle (a page on neither https nor
// localhost) or cannot start the worker.
func startDigest(script string, data any, move bool) *digest {
	if _, err := global("crypto", "subtle"); err != nil {
		d := &digest{done: make(chan digestResult, 4)}
		d.done <- digestResult{err: err}
		return d
	}
	d := startWorker(script)
	if move {
		d.post(data, []any{data})
	} else {
		d.post(data, nil)
	}
	return d
}

// readWhole has a worker running script (web/digest.js) read files, File
// objects, whole, and calls take with each chunk it reads, as it comes;
// take moves it back ({file, at, back}) once done with it. Its first
// result says that the files are read, or why they could not be (err), or
// that the worker did not run (broken). The page may then post it
// {hash: order}, for their SHA-256, its next result.
func readWhole(script string, files []any, take func(fileChunk) error) *digest {
	d := startWorker(script)
	d.chunk = take
	d.post(map[string]any{"read": files}, nil)
	return d
}

// startWorker starts script (web/digest.js) in a worker of its own, whose
// answers come on the digest's done.
func startWorker(script string) *digest {
	d := &digest{done: make(chan digestResult, 4)}
	var err error
	if d.worker, err = jsx.New("Worker", script); err != nil {
		d.done <- digestResult{err: err, broken: err}
		return d
	}
	d.answer, err = safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		var r digestResult
		msg, err := args[0].Get("data")
		if err == nil {
			if chunk, _ := msg.Get("chunk"); jsx.Truthy(chunk) {
				// Taken at once: the next may come in the next task.
				if d.copyErr == nil && d.chunk != nil {
					file, _ := jsx.Int(msg, "file")
					at, _ := jsx.Int(msg, "at")
					d.copyErr = d.chunk(fileChunk{file, at, chunk})
				}
				return nil
			}
			if sum, _ := msg.Get("sum"); jsx.Truthy(sum) {
				r.sum, r.err = jsx.Bytes(sum)
			} else if read, _ := msg.Get("read"); jsx.Truthy(read) {
				r.err = d.copyErr
			} else {
				reason, _ := msg.Get("error")
				why, _ := reason.String()
				r.err = errors.New(why)
			}
		}
		d.done <- r
		return nil
	})
	if err == nil {
		d.broke, err = safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
			broken := errors.New(script + " did not run")
			d.done <- digestResult{err: broken, broken: broken}
			return nil
		})
	}
	if err == nil {
		err = d.worker.Set("onmessage", d.answer.Value())
	}
	if err == nil {
		err = d.worker.Set("onerror", d.broke.Value())
	}
	if err != nil {
		d.done <- digestResult{err: err, broken: err}
	}
	return d
}

// post sends the worker msg, moving the objects of transfer (nil: none).
func (d *digest) post(msg any, transfer []any) {
	if !jsx.Truthy(d.worker) {
		return // it did not start: its done says so
	}
	var err error
	if transfer != nil {
		_, err = d.worker.Call("postMessage", msg, transfer)
	} else {
		_, err = d.worker.Call("postMessage", msg)
	}
	if err != nil {
		d.done <- digestResult{err: err, broken: err}
	}
}

// A digest is web/digest.js at work in a worker of its own: the browser's
// SHA-256 under way (startDigest), or files read whole (readWhole).
type digest struct {
	done          chan digestResult
	worker        safejs.Value
	answer, broke safejs.Func

	chunk   func(fileChunk) error // readWhole's take
	copyErr error                 // why a chunk could not be taken
}

// fileChunk is a chunk of a file web/digest.js read: the file's index in
// the files it was given, the chunk's offset there and its bytes (an
// ArrayBuffer).
type fileChunk struct {
	file, at int
	bytes    safejs.Value
}

type digestResult struct {
	sum    []byte
	err    error
	broken error // the worker did not start or did not run
}

// sum waits for the digest, then ends its worker.
func (d *digest) sum() ([]byte, error) {
	r := <-d.done
	d.stop()
	if r.err != nil {
		return nil, fmt.Errorf("the digest failed: %w", r.err)
	}
	return r.sum, nil
}

// stop ends the digest's worker, whatever it is doing.
func (d *digest) stop() {
	if jsx.Truthy(d.worker) {
		_, _ = d.worker.Call("terminate")
		d.worker = safejs.Undefined()
		d.answer.Release()
		d.broke.Release()
	}
}

// checkFileHead reads the first bytes of a chosen file, before the file
// is read whole, and if it is a GGUF file refuses it from them with its
// preflight report (modelfile.Preflight): a header that claims more than a
// real file holds, a model this engine does not run, or one too large for
// the page to hold once open. It reads more while the header goes on
// beyond the bytes read (modelfile.HeadSizes). The report it returns, nil
// for a file that is not GGUF or whose header is longer than it reads,
// holds the header and tokenizer it read, which opening the file reuses
// (modelfile.File's Head).
func checkFileHead(f safejs.Value, name string) (*modelfile.Report, error) {
	size, err := jsx.Int(f, "size")
	if err != nil {
		return nil, err
	}
	for _, n := range modelfile.HeadSizes {
		blob, err := f.Call("slice", 0, min(size, n))
		var buf safejs.Value
		if err == nil {
			buf, err = jsx.Await(blob.Call("arrayBuffer"))
		}
		var head []byte
		if err == nil {
			head, err = jsx.Bytes(buf)
		}
		if err != nil {
			return nil, fmt.Errorf("%s could not be read: %w", name, err)
		}
		if !bytes.HasPrefix(head, []byte(gguf.Magic)) {
			return nil, nil // a llama2.c file, whose header checkpoint.Read checks before it allocates
		}
		r, err := modelfile.Preflight(name, head, int64(size))
		if errors.Is(err, modelfile.ErrShortHead) && len(head) < size {
			continue
		}
		if err != nil {
			return nil, err
		}
		if r.Err() != nil {
			return nil, fmt.Errorf("%s: %w", name, refusal(r))
		}
		return r, nil
	}
	return nil, nil // a header longer still: checked once the file is in
}
