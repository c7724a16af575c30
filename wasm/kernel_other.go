//go:build !js

package main

import "nexttoken/engine/session"

// engine has no kernels to load outside the browser.
func engine() session.Options { return session.Options{} }
