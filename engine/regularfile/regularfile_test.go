//go:build unix

package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefuses names a directory, a named pipe with no writer, a device and
// a missing path: each is refused with its own words, and none blocks.
func TestRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, tc := range []struct {
		path, want string
		mode       fs.FileMode
	}{
		{dir, dir + " is a directory, not a regular file", fs.ModeDir},
		{fifo, fifo + " is a named pipe (FIFO), not a regular file", fs.ModeNamedPipe},
		{os.DevNull, os.DevNull + " is a device, not a regular file", fs.ModeDevice},
	} {
		for name, open := range map[string]func(string) error{
			"Open":    func(p string) error { _, _, err := Open(p); return err },
			"ReadAll": func(p string) error { _, err := ReadAll(p, 1<<20); return err },
			"OpenIn": func(p string) error {
				root, err := os.OpenRoot(filepath.Dir(p))
				if err != nil {
					return err
				}
				defer root.Close()
				_, _, err = OpenIn(root, filepath.Base(p))
				return err
			},
		} {
			err := open(tc.path)
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Mode&tc.mode == 0 {
				t.Errorf("%s(%s): error %v, want a *NotRegularError of mode %v", name, tc.path, err, tc.mode)
			}
			if name != "OpenIn" && (err == nil || err.Error() != tc.want) {
				t.Errorf("%s(%s): error %v, want %q", name, tc.path, err, tc.want)
			}
		}
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: error %v, want fs.ErrNotExist", err)
	}
}

func TestReadAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("twelve bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadAll(path, 12); err != nil || string(b) != "twelve bytes" {
		t.Errorf("ReadAll(12): %q, %v", b, err)
	}
	_, err := ReadAll(path, 11)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "is 12 bytes, more than the 11 it may have") {
		t.Errorf("ReadAll(11): error %v, want a *TooLargeError", err)
	}
}
