//go:build js

package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/modelfile"
	"nexttoken/wasm/jsx"
)

// download reads the file at url, from the model cache when it is there
// and from the network otherwise, keeping a network copy in the cache. It
// calls progress as bytes arrive, and refuses a file larger than limit
// before reading it. Closing cancel aborts the download. It blocks: call it
// from a goroutine of its own, never the page's. The Hash gives the file's
// SHA-256 from the browser's own digest, which a worker running script
// (web/digest.js) computes off the page's thread on the bytes read for
// the cache or from it; it is nil where there is no cache.
func download(url string, limit int64, progress func(got, total int64), cancel <-chan struct{}, script string) ([]byte, modelfile.Hash, error) {
	cache, _ := openCache() // no Cache Storage (an insecure origin): download every time
	if jsx.Truthy(cache) {
		if hit, err := jsx.Await(cache.Call("match", url)); err == nil && jsx.Truthy(hit) {
			if data, sum, err := readCached(hit, limit, progress, script); err == nil {
				return data, digested(sum), nil
			}
			_, _ = cache.Call("delete", url) // a damaged copy: fetch it afresh
		}
	}
	controller, err := jsx.New("AbortController")
	if err != nil {
		return nil, nil, err
	}
	signal, err := controller.Get("signal")
	if err != nil {
		return nil, nil, err
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-cancel:
			_, _ = controller.Call("abort")
		case <-stop:
		}
	}()
	init, err := jsx.New("Object")
	if err == nil {
		err = init.Set("signal", signal)
	}
	if err != nil {
		return nil, nil, err
	}
	resp, status, err := fetch(url, init)
	if err != nil {
		if isClosed(cancel) {
			return nil, nil, errCancelled
		}
		return nil, nil, err
	}
	if status != 200 {
		return nil, nil, fmt.Errorf("%s: the server answered %d", url, status)
	}
	data, err := readBody(resp, url, limit, progress, cancel)
	if err != nil {
		return nil, nil, err
	}
	if !jsx.Truthy(cache) {
		return data, nil, nil
	}
	sum, err := store(cache, url, data, script)
	if sum == nil {
		return data, nil, nil // a full cache only costs the next visit a download
	}
	return data, digested(sum), nil
}

// readCached reads a response from the model cache whole, which is on
// this machine, checking its length against its Content-Length and
// limit, and then starts the browser's digest of it (startDigest).
func readCached(resp safejs.Value, limit int64, progress func(got, total int64), script string) ([]byte, *digest, error) {
	total := contentLength(resp)
	if total < 0 || total > limit {
		return nil, nil, fmt.Errorf("a cached copy of %d bytes, at most %d", total, limit)
	}
	progress(0, total)
	buf, err := jsx.Await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, nil, err
	}
	data, err := jsx.Bytes(buf)
	if err == nil && int64(len(data)) != total {
		err = fmt.Errorf("a cached copy of %d bytes, not %d", len(data), total)
	}
	if err != nil {
		return nil, nil, err
	}
	progress(total, total)
	return data, startDigest(script, buf, true), nil
}

// digested is the Hash of the files whose digest startDigest started, in
// the order it was given them.
func digested(sum *digest) modelfile.Hash {
	return func([]int) ([]byte, error) {
		got, err := sum.sum()
		if err != nil {
			mark("nexttoken:no-digest") // Go hashes it
			return nil, err
		}
		mark("nexttoken:hashed")
		return got, nil
	}
}

var errCancelled = errors.New("cancelled")

// fetch asks for url with fetch's init object and returns the response
// and its status. fetch rejects only when no response came: the network
// is down, or the server does not allow this page to read it (CORS).
func fetch(url string, init safejs.Value) (resp safejs.Value, status int, err error) {
	resp, err = jsx.Await(safejs.Global().Call("fetch", url, init))
	if err != nil {
		return resp, 0, fmt.Errorf("%s could not be fetched (offline, or the server does not allow this page to read it): %w", url, err)
	}
	status, err = jsx.Int(resp, "status")
	return resp, status, err
}

// header is a response's header called name, "" when it has none.
func header(resp safejs.Value, name string) string {
	headers, err := resp.Get("headers")
	if err != nil {
		return ""
	}
	v, err := headers.Call("get", name)
	if err != nil || !jsx.Truthy(v) {
		return ""
	}
	s, _ := v.String()
	return s
}

// contentLength is a response's Content-Length, -1 when it has none.
func contentLength(resp safejs.Value) int64 {
	n, err := strconv.ParseInt(header(resp, "Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// readBody reads a response's body chunk by chunk, checking its length
// against the Content-Length header and limit.
func readBody(resp safejs.Value, url string, limit int64, progress func(got, total int64), cancel <-chan struct{}) ([]byte, error) {
	total := contentLength(resp)
	if total > limit {
		return nil, fmt.Errorf("%s is %s, more than the %s this page reads", url, byteSize(int(total)), byteSize(int(limit)))
	}
	body, err := resp.Get("body")
	if err != nil || !jsx.Truthy(body) {
		return nil, fmt.Errorf("%s: the response has no body", url)
	}
	reader, err := body.Call("getReader")
	if err != nil {
		return nil, err
	}
	data := make([]byte, 0, max(total, 0))
	progress(0, total)
	for {
		if isClosed(cancel) {
			_, _ = reader.Call("cancel")
			return nil, errCancelled
		}
		chunk, err := jsx.Await(reader.Call("read"))
		if err != nil {
			if isClosed(cancel) {
				return nil, errCancelled
			}
			return nil, fmt.Errorf("%s: the download broke off after %s: %w", url, byteSize(len(data)), err)
		}
		if done, _ := chunk.Get("done"); jsx.Truthy(done) {
			break
		}
		value, err := chunk.Get("value")
		if err != nil {
			return nil, err
		}
		n, err := jsx.Int(chunk, "value", "length")
		if err != nil {
			return nil, err
		}
		if int64(len(data)+n) > limit {
			_, _ = reader.Call("cancel")
			return nil, fmt.Errorf("%s is more than the %s this page reads", url, byteSize(int(limit)))
		}
		start := len(data)
		data = append(data, make([]byte, n)...)
		if _, err := safejs.CopyBytesToGo(data[start:], value); err != nil {
			return nil, err
		}
		progress(int64(len(data)), total)
	}
	if total >= 0 && int64(len(data)) != total {
		return nil, fmt.Errorf("%s: the download stopped at %s of %s", url, byteSize(len(data)), byteSize(int(total)))
	}
	return data, nil
}

func openCache() (safejs.Value, error) {
	caches, err := global("caches")
	if err != nil {
		return safejs.Undefined(), err
	}
	return jsx.Await(caches.Call("open", modelCache))
}

// store puts data in cache as url's response, and then starts the
// browser's digest of the copy it made (startDigest).
func store(cache safejs.Value, url string, data []byte, script string) (*digest, error) {
	array, err := jsx.New("Uint8Array", len(data))
	if err != nil {
		return nil, err
	}
	if _, err := safejs.CopyBytesToJS(array, data); err != nil {
		return nil, err
	}
	// The Response holds a copy of the bytes of its own.
	resp, err := jsx.New("Response", array, map[string]any{"headers": map[string]any{
		"Content-Type": "application/octet-stream", "Content-Length": strconv.Itoa(len(data))}})
	if err != nil {
		return nil, err
	}
	buf, err := array.Get("buffer")
	if err != nil {
		return nil, err
	}
	sum := startDigest(script, buf, true)
	_, err = jsx.Await(cache.Call("put", url, resp))
	return sum, err
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// downloadHead reads the first n bytes of the file at url with a range
// request, and the file's size from Content-Range (-1 if the server does
// not show it). head is nil when the server sends the whole file instead:
// it does not serve ranges.
func downloadHead(url string, n int) (head []byte, size int64, err error) {
	init, err := jsx.New("Object")
	if err != nil {
		return nil, 0, err
	}
	if err := init.Set("headers", map[string]any{"Range": "bytes=0-" + strconv.Itoa(n-1)}); err != nil {
		return nil, 0, err
	}
	resp, status, err := fetch(url, init)
	if err != nil {
		return nil, 0, err
	}
	switch status {
	case 206:
	case 200:
		if body, err := resp.Get("body"); err == nil && jsx.Truthy(body) {
			_, _ = body.Call("cancel")
		}
		return nil, -1, nil
	default:
		return nil, 0, fmt.Errorf("%s: the server answered %d", url, status)
	}
	size = -1
	if _, total, ok := strings.Cut(header(resp, "Content-Range"), "/"); ok {
		if t, err := strconv.ParseInt(total, 10, 64); err == nil && t > 0 {
			size = t
		}
	}
	head, err = readBody(resp, url, int64(n), func(int64, int64) {}, nil)
	if size < 0 {
		return nil, -1, err // the metadata cannot be checked against an unknown size
	}
	return head, size, err
}

// storedModels lists the files in the model cache with their sizes.
func storedModels() ([]storedModel, error) {
	cache, err := openCache()
	if err != nil {
		return nil, err
	}
	keys, err := jsx.Await(cache.Call("keys"))
	if err != nil {
		return nil, err
	}
	n, err := keys.Length()
	if err != nil {
		return nil, err
	}
	out := make([]storedModel, 0, n)
	for i := range n {
		req, err := keys.Index(i)
		if err != nil {
			return nil, err
		}
		u, _ := req.Get("url")
		url, _ := u.String()
		m := storedModel{url: url, size: -1}
		if resp, err := jsx.Await(cache.Call("match", req)); err == nil && jsx.Truthy(resp) {
			m.size = contentLength(resp)
		}
		out = append(out, m)
	}
	return out, nil
}

// forgetModel deletes url's file from the model cache.
func forgetModel(url string) error {
	cache, err := openCache()
	if err != nil {
		return err
	}
	_, err = jsx.Await(cache.Call("delete", url))
	return err
}
