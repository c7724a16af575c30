//go:build js

package ui

import (
	"bytes"
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

// mark sets a User Timing mark called name (performance.mark), which a
// browser's profiler shows and a timing test reads: where the time between
// a reader's files and the model open goes.
func mark(name string) {
	if perf, err := global("performance"); err == nil {
		_, _ = perf.Call("mark", name)
	}
}

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
// and checked on its own (checkFileHead). The browser reads the files in
// once, one after the other into one buffer, and hashes that buffer with
// its own SHA-256 (crypto.subtle, off the page's thread) while Go copies
// the files out of it; the Hash gives that sum, or hashes the files again
// in another order.
func readFiles(list fileList, limit int64) ([]modelfile.File, modelfile.Hash, error) {
	n, err := jsx.Int(list.v, "length")
	if err != nil {
		return nil, nil, err
	}
	files := make([]any, n) // the File objects, for the Blob of them all
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
	for i, f := range files {
		name, _ := f.(safejs.Value).Get("name")
		out[i].Name, _ = name.String()
		if err := checkFileHead(f.(safejs.Value), out[i].Name); err != nil {
			return nil, nil, err
		}
	}
	mark("nexttoken:heads-checked")
	buf, err := readAll(files)
	if err != nil {
		return nil, nil, fmt.Errorf("%s could not be read: %w", out[0].Name, err)
	}
	mark("nexttoken:bytes-read")
	sum := startDigest(buf)
	off := 0
	for i := range out {
		part, err := jsx.New("Uint8Array", buf, off, sizes[i])
		if err == nil {
			out[i].Data = make([]byte, sizes[i])
			_, err = safejs.CopyBytesToGo(out[i].Data, part)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s could not be read: %w", out[i].Name, err)
		}
		off += sizes[i]
	}
	mark("nexttoken:bytes-copied")
	hash := func(order []int) ([]byte, error) {
		mark("nexttoken:hash-asked")
		defer mark("nexttoken:hashed")
		if slices.Equal(order, []int{0, 1}[:len(order)]) {
			return awaitDigest(sum)
		}
		again := make([]any, len(order))
		for i, j := range order {
			again[i] = files[j]
		}
		buf, err := readAll(again)
		if err != nil {
			return nil, err
		}
		return awaitDigest(startDigest(buf))
	}
	return out, hash, nil
}

// readAll reads files (File objects) into one ArrayBuffer, one after the
// other.
func readAll(files []any) (safejs.Value, error) {
	whole := files[0].(safejs.Value)
	if len(files) > 1 {
		var err error
		if whole, err = jsx.New("Blob", files); err != nil {
			return safejs.Undefined(), err
		}
	}
	return jsx.Await(whole.Call("arrayBuffer"))
}

// startDigest starts the browser's SHA-256 of data, an ArrayBuffer
// (crypto.subtle.digest, which Chromium computes off the page's thread),
// and returns its promise; undefined where the page has no crypto.subtle
// (it is not a secure context: neither https nor localhost).
func startDigest(data safejs.Value) safejs.Value {
	subtle, err := global("crypto", "subtle")
	if err != nil {
		return safejs.Undefined()
	}
	p, err := subtle.Call("digest", "SHA-256", data)
	if err != nil {
		return safejs.Undefined()
	}
	return p
}

// awaitDigest waits for startDigest's sum; it fails where there is none,
// and the files are then hashed in Go.
func awaitDigest(p safejs.Value) ([]byte, error) {
	if !jsx.Truthy(p) {
		return nil, errors.New("this page has no crypto.subtle")
	}
	buf, err := jsx.Await(p, nil)
	if err != nil {
		return nil, err
	}
	return jsx.Bytes(buf)
}

// checkFileHead reads the first bytes of a chosen file, before the file
// is read whole, and if it is a GGUF file refuses it from them with its
// preflight report (modelfile.Preflight): a header that claims more than a
// real file holds, a model this engine does not run, or one too large for
// the page to hold once open. It reads more while the header goes on
// beyond the bytes read (modelfile.HeadSizes).
func checkFileHead(f safejs.Value, name string) error {
	size, err := jsx.Int(f, "size")
	if err != nil {
		return err
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
			return fmt.Errorf("%s could not be read: %w", name, err)
		}
		if !bytes.HasPrefix(head, []byte(gguf.Magic)) {
			return nil // a llama2.c file, whose header checkpoint.Read checks before it allocates
		}
		r, err := modelfile.Preflight(name, head, int64(size))
		if errors.Is(err, modelfile.ErrShortHead) && len(head) < size {
			continue
		}
		if err != nil {
			return err
		}
		if r.Err() != nil {
			return fmt.Errorf("%s: %w", name, refusal(r))
		}
		return nil
	}
	return nil // a header longer still: checked once the file is in
}
