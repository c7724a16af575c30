//go:build js

package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hack-pad/safejs"
)

// modelCache is the Cache Storage cache that keeps downloaded models, so
// that a second visit costs no download.
const modelCache = "nexttoken-models"

// download reads the file at url, from the model cache when it is there
// and from the network otherwise, keeping a network copy in the cache. It
// calls progress as bytes arrive, and refuses a file larger than limit
// before reading it. Closing cancel aborts the download. It blocks: call it
// from a goroutine of its own, never the page's.
func download(url string, limit int64, progress func(got, total int64), cancel <-chan struct{}) ([]byte, error) {
	cache, _ := openCache() // no Cache Storage (an insecure origin): download every time
	if truthy(cache) {
		if hit, err := await(cache.Call("match", url)); err == nil && truthy(hit) {
			if data, err := readBody(hit, url, limit, progress, cancel); err == nil {
				return data, nil
			}
			_, _ = cache.Call("delete", url) // a damaged copy: fetch it afresh
		}
	}
	controller, err := newObject("AbortController")
	if err != nil {
		return nil, err
	}
	signal, err := controller.Get("signal")
	if err != nil {
		return nil, err
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
	init, err := newObject("Object")
	if err == nil {
		err = init.Set("signal", signal)
	}
	if err != nil {
		return nil, err
	}
	resp, err := await(safejs.Global().Call("fetch", url, init))
	if err != nil {
		if isClosed(cancel) {
			return nil, errCancelled
		}
		// fetch rejects only when no response came: the network, or CORS.
		return nil, fmt.Errorf("%s could not be fetched (offline, or the server does not allow this page to read it): %w", url, err)
	}
	if status, _ := intOf(resp, "status"); status != 200 {
		return nil, fmt.Errorf("%s: the server answered %d", url, status)
	}
	data, err := readBody(resp, url, limit, progress, cancel)
	if err != nil {
		return nil, err
	}
	if truthy(cache) {
		_ = store(cache, url, data) // a full cache only costs the next visit a download
	}
	return data, nil
}

var errCancelled = errors.New("cancelled")

// readBody reads a response's body chunk by chunk, checking its length
// against the Content-Length header and limit.
func readBody(resp safejs.Value, url string, limit int64, progress func(got, total int64), cancel <-chan struct{}) ([]byte, error) {
	total := int64(-1)
	if headers, err := resp.Get("headers"); err == nil {
		if v, err := headers.Call("get", "Content-Length"); err == nil && truthy(v) {
			s, _ := v.String()
			if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
				total = n
			}
		}
	}
	if total > limit {
		return nil, fmt.Errorf("%s is %s, more than the %s this page reads", url, byteSize(int(total)), byteSize(int(limit)))
	}
	body, err := resp.Get("body")
	if err != nil || !truthy(body) {
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
		chunk, err := await(reader.Call("read"))
		if err != nil {
			if isClosed(cancel) {
				return nil, errCancelled
			}
			return nil, fmt.Errorf("%s: the download broke off after %s: %w", url, byteSize(len(data)), err)
		}
		if done, _ := chunk.Get("done"); truthy(done) {
			break
		}
		value, err := chunk.Get("value")
		if err != nil {
			return nil, err
		}
		n, err := intOf(chunk, "value", "length")
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
	return await(caches.Call("open", modelCache))
}

// store puts data in cache as url's response.
func store(cache safejs.Value, url string, data []byte) error {
	array, err := newObject("Uint8Array", len(data))
	if err != nil {
		return err
	}
	if _, err := safejs.CopyBytesToJS(array, data); err != nil {
		return err
	}
	resp, err := newObject("Response", array, map[string]any{"headers": map[string]any{
		"Content-Type": "application/octet-stream", "Content-Length": strconv.Itoa(len(data))}})
	if err != nil {
		return err
	}
	_, err = await(cache.Call("put", url, resp))
	return err
}

// await waits for a promise (or the error of making it) to settle.
func await(promise safejs.Value, err error) (safejs.Value, error) {
	if err != nil {
		return safejs.Undefined(), err
	}
	type settled struct {
		v   safejs.Value
		err error
	}
	done := make(chan settled, 1)
	arg := func(args []safejs.Value) safejs.Value {
		if len(args) == 0 {
			return safejs.Undefined()
		}
		return args[0]
	}
	resolve, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		done <- settled{v: arg(args)}
		return nil
	})
	if err != nil {
		return safejs.Undefined(), err
	}
	defer resolve.Release()
	reject, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		done <- settled{err: jsError(arg(args))}
		return nil
	})
	if err != nil {
		return safejs.Undefined(), err
	}
	defer reject.Release()
	if _, err := promise.Call("then", resolve.Value(), reject.Value()); err != nil {
		return safejs.Undefined(), err
	}
	s := <-done
	return s.v, s.err
}

// jsError is a rejected promise's reason as an error.
func jsError(reason safejs.Value) error {
	if msg, err := reason.Get("message"); err == nil && truthy(msg) {
		if s, err := msg.String(); err == nil {
			return errors.New(s)
		}
	}
	return errors.New("failed")
}

func newObject(constructor string, args ...any) (safejs.Value, error) {
	c, err := global(constructor)
	if err != nil {
		return safejs.Undefined(), err
	}
	return c.New(args...)
}

// intOf reads the number at path in v.
func intOf(v safejs.Value, path ...string) (int, error) {
	for _, p := range path {
		var err error
		if v, err = v.Get(p); err != nil {
			return 0, err
		}
	}
	return v.Int()
}

// truthy is v's truth in JavaScript, false when it cannot be read.
func truthy(v safejs.Value) bool {
	b, err := v.Truthy()
	return err == nil && b
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
	init, err := newObject("Object")
	if err != nil {
		return nil, 0, err
	}
	if err := init.Set("headers", map[string]any{"Range": "bytes=0-" + strconv.Itoa(n-1)}); err != nil {
		return nil, 0, err
	}
	resp, err := await(safejs.Global().Call("fetch", url, init))
	if err != nil {
		return nil, 0, fmt.Errorf("%s could not be fetched (offline, or the server does not allow this page to read it): %w", url, err)
	}
	switch status, _ := intOf(resp, "status"); status {
	case 206:
	case 200:
		if body, err := resp.Get("body"); err == nil && truthy(body) {
			_, _ = body.Call("cancel")
		}
		return nil, -1, nil
	default:
		return nil, 0, fmt.Errorf("%s: the server answered %d", url, status)
	}
	size = -1
	if headers, err := resp.Get("headers"); err == nil {
		if v, err := headers.Call("get", "Content-Range"); err == nil && truthy(v) {
			s, _ := v.String()
			if _, total, ok := strings.Cut(s, "/"); ok {
				if t, err := strconv.ParseInt(total, 10, 64); err == nil && t > 0 {
					size = t
				}
			}
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
	keys, err := await(cache.Call("keys"))
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
		if resp, err := await(cache.Call("match", req)); err == nil && truthy(resp) {
			if headers, err := resp.Get("headers"); err == nil {
				if v, err := headers.Call("get", "Content-Length"); err == nil && truthy(v) {
					s, _ := v.String()
					m.size, _ = strconv.ParseInt(s, 10, 64)
				}
			}
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
	_, err = await(cache.Call("delete", url))
	return err
}
