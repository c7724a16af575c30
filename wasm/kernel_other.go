//go:build !js

package main

// chooseKernel has no engine kernel to choose outside the browser.
func chooseKernel() {}
