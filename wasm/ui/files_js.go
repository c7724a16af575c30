//go:build js

package ui

import (
	"bytes"
	"errors"
	"fmt"

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
// and checked on its own (checkFileHead).
func readFiles(list fileList, limit int64) ([]modelfile.File, error) {
	n, err := jsx.Int(list.v, "length")
	if err != nil {
		return nil, err
	}
	files := make([]safejs.Value, n)
	var total int64
	for i := range files {
		if files[i], err = list.v.Call("item", i); err != nil {
			return nil, err
		}
		size, err := jsx.Int(files[i], "size")
		if err != nil {
			return nil, err
		}
		total += int64(size)
	}
	if total > limit {
		return nil, fmt.Errorf("the files have %s; the page holds models of at most %s: a WebAssembly program has at most 4 GiB, and a file is read whole before its weights are decoded",
			byteSize(int(total)), byteSize(int(limit)))
	}
	out := make([]modelfile.File, n)
	for i, f := range files {
		name, _ := f.Get("name")
		out[i].Name, _ = name.String()
		if err := checkFileHead(f, out[i].Name); err != nil {
			return nil, err
		}
	}
	for i, f := range files {
		buf, err := jsx.Await(f.Call("arrayBuffer"))
		if err == nil {
			out[i].Data, err = jsx.Bytes(buf)
		}
		if err != nil {
			return nil, fmt.Errorf("%s could not be read: %w", out[i].Name, err)
		}
	}
	return out, nil
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
