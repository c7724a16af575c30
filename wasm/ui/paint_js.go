//go:build js

package ui

import (
	"strconv"

	"github.com/hack-pad/safejs"
)

// The hot views' writes wait in a batch, which flushPaint hands to
// web/paint.js's nexttokenPaint in one call: a step writes a few hundred
// values, and each call from Go to the browser has its cost.
var (
	paintBatch []byte
	paintFunc  safejs.Value
)

func init() {
	paintFunc, _ = safejs.Global().Get("nexttokenPaint")
}

// setHTML makes html the content of the element with the given id.
func setHTML(id, html string) { paintOp("h", id, jsonString(html), "") }

// setStyle makes css the inline style of the element with the given id.
func setStyle(id, css string) { paintOp("s", id, jsonString(css), "") }

// setVisible shows or hides the element with the given id.
func setVisible(id string, visible bool) { paintOp("v", id, strconv.FormatBool(visible), "") }

// setDisabled enables or disables the control with the given id.
func setDisabled(id string, disabled bool) { paintOp("d", id, strconv.FormatBool(disabled), "") }

// setValue makes value the text of the field with the given id.
func setValue(id, value string) { paintOp("f", id, jsonString(value), "") }

// setAttr sets an attribute of the element with the given id.
func setAttr(id, name, value string) { paintOp("a", id, jsonString(value), name) }

// paintOp adds a write to the batch; value is already JSON.
func paintOp(kind, id, value, name string) {
	if len(paintBatch) == 0 {
		paintBatch = append(paintBatch, '[')
	} else {
		paintBatch = append(paintBatch, ',')
	}
	paintBatch = append(paintBatch, `["`+kind+`",`...)
	paintBatch = appendJSON(paintBatch, id)
	paintBatch = append(paintBatch, ',')
	paintBatch = append(paintBatch, value...)
	if name != "" {
		paintBatch = append(paintBatch, ',')
		paintBatch = appendJSON(paintBatch, name)
	}
	paintBatch = append(paintBatch, ']')
}

// flushPaint makes the writes waiting in the batch.
func flushPaint() {
	if len(paintBatch) == 0 {
		return
	}
	paintBatch = append(paintBatch, ']')
	if !paintFunc.IsUndefined() {
		_, _ = paintFunc.Invoke(string(paintBatch))
	}
	paintBatch = paintBatch[:0]
}

// jsonString is s as a JSON string.
func jsonString(s string) string { return string(appendJSON(nil, s)) }

// serveTips lets web/paint.js ask for the token popover's content,
// nexttokenTip(kind, n), which content gives (tipHTML); a bug in it gives
// no popover, not a dead page.
func serveTips(content func(kind string, n int) string) {
	f, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) (html any) {
		defer func() {
			if r := recover(); r != nil {
				html = ""
			}
		}()
		if len(args) < 2 {
			return ""
		}
		kind, err1 := args[0].String()
		n, err2 := args[1].Int()
		if err1 != nil || err2 != nil {
			return ""
		}
		return content(kind, n)
	})
	if err == nil {
		_ = safejs.Global().Set("nexttokenTip", f.Value())
	}
}
