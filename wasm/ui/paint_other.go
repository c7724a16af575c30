//go:build !js

package ui

// Outside the browser there is no page to paint: what the hot views would
// write is kept by element id, for the views' tests to read.
var painted = map[string]string{}

func setHTML(id, html string) { painted[id] = html }
func setStyle(id, css string) { painted[id+" style"] = css }

func setVisible(id string, visible bool) {
	painted[id+" hidden"] = map[bool]string{true: "false", false: "true"}[visible]
}

func setAttr(id, name, value string) { painted[id+" "+name] = value }

func setDisabled(id string, disabled bool) {
	painted[id+" disabled"] = map[bool]string{true: "true", false: "false"}[disabled]
}

func setValue(id, value string) { painted[id+" value"] = value }

func flushPaint() {}

func serveTips(func(kind string, n int) string) {}
