//go:build !js

package ui

// focusPlayground has nothing to focus when the server prerenders.
func focusPlayground() {}
