//go:build !js

package ui

import (
	"errors"

	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
)

// Outside the browser (the server prerendering a page) there is no clipboard,
// address bar, focus or parent page.

var errNoBrowser = errors.New("not running in a browser")

func copyText(string) error        { return errNoBrowser }
func replaceURL(string) error      { return errNoBrowser }
func focusPlayground() error       { return errNoBrowser }
func focusPlaygroundIfFree() error { return errNoBrowser }
func reportHeight() error          { return errNoBrowser }

func saveFile(string, string, []byte) error { return errNoBrowser }

func nextFrame(func()) error                       { return errNoBrowser }
func holdHeight(string, bool)                      {}
func drawRows(string, int, int, int, []byte) error { return errNoBrowser }
func prefersDark() bool                            { return false }
func mark(string)                                  {}
func clearRows(string, int, int) error             { return errNoBrowser }

func onFrameHeight(string, func(int)) (func(), error) { return nil, errNoBrowser }

// EndTask has no browser to give the thread to outside the browser.
func EndTask() {}

// TakeOverSteps has no page to take over outside the browser.
func TakeOverSteps() {}

// RepairAddress has no address bar to repair outside the browser.
func RepairAddress() {}

func download(string, int64, func(int64, int64), <-chan struct{}, string) ([]byte, modelfile.Hash, error) {
	return nil, nil, errNoBrowser
}

type fileList struct{}

func pickedFiles(string) (fileList, error) { return fileList{}, errNoBrowser }
func onFileDrop(func(fileList)) error      { return errNoBrowser }
func readFiles(fileList, int64, string) ([]modelfile.File, modelfile.Hash, error) {
	return nil, nil, errNoBrowser
}

func downloadHead(string, int) ([]byte, int64, error) { return nil, 0, errNoBrowser }

func storedModels() ([]storedModel, error) { return nil, errNoBrowser }
func forgetModel(string) error             { return errNoBrowser }

func prefillNotice() session.Progress { return nil }

func attachChat(*session.Model, string) error { return errNoBrowser }

// fetchKernels outside the browser has no kernel modules to fetch.
func (*Playground) fetchKernels(*session.Model) {}
