//go:build js

// Package jsx holds the few JavaScript helpers that the browser programs
// (the playground and decodebench) share beyond safejs: waiting for a
// promise, truth, construction, numbers and bytes. Every call goes through
// safejs, so a JavaScript failure is an error, never a panic.
package jsx

import (
	"errors"

	"github.com/hack-pad/safejs"
)

// Await waits for a promise (or the error of making it) to settle. It
// blocks: call it from a goroutine of its own, never from a JavaScript
// callback.
func Await(promise safejs.Value, err error) (safejs.Value, error) {
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
		done <- settled{err: Error(arg(args))}
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

// Error is a rejected promise's reason, or a thrown value, as an error.
func Error(reason safejs.Value) error {
	if msg, err := reason.Get("message"); err == nil && Truthy(msg) {
		if s, err := msg.String(); err == nil {
			return errors.New(s)
		}
	}
	return errors.New("failed")
}

// Truthy is v's truth in JavaScript, false when it cannot be read.
func Truthy(v safejs.Value) bool {
	b, err := v.Truthy()
	return err == nil && b
}

// New constructs the global constructor's object with args.
func New(constructor string, args ...any) (safejs.Value, error) {
	c, err := safejs.Global().Get(constructor)
	if err != nil {
		return safejs.Undefined(), err
	}
	if c.IsUndefined() {
		return safejs.Undefined(), errors.New(constructor + " is not available in this browser")
	}
	return c.New(args...)
}

// Int reads the number at path in v.
func Int(v safejs.Value, path ...string) (int, error) {
	for _, p := range path {
		var err error
		if v, err = v.Get(p); err != nil {
			return 0, err
		}
	}
	return v.Int()
}

// Bytes copies an ArrayBuffer's contents into Go.
func Bytes(buffer safejs.Value) ([]byte, error) {
	array, err := New("Uint8Array", buffer)
	if err != nil {
		return nil, err
	}
	n, err := Int(array, "length")
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err = safejs.CopyBytesToGo(b, array)
	return b, err
}

// Fetch reads the whole file at url.
func Fetch(url string) ([]byte, error) {
	resp, err := Await(safejs.Global().Call("fetch", url))
	if err != nil {
		return nil, err
	}
	if status, _ := Int(resp, "status"); status != 200 {
		return nil, errors.New(url + ": the server did not answer 200")
	}
	buf, err := Await(resp.Call("arrayBuffer"))
	if err != nil {
		return nil, err
	}
	return Bytes(buf)
}
