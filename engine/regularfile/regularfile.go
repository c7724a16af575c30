// Package regularfile opens the files a user names, and only if they are
// regular files: a directory, a named pipe, a device or a socket is
// refused with a *NotRegularError that says which, and opening one never
// blocks (a named pipe's open waits for a writer; /dev/zero never ends).
//
// The file is looked at before it is opened, and the file opened is looked
// at again (where the system allows, it is opened without blocking), so
// that a file swapped for a pipe in between is refused too.
package regularfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is the error for a path that names something other than
// a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	switch m := e.Mode; {
	case m.IsDir():
		return e.Path + " is a directory, not a regular file"
	case m&fs.ModeNamedPipe != 0:
		return e.Path + " is a named pipe (FIFO), not a regular file"
	case m&fs.ModeSocket != 0:
		return e.Path + " is a socket, not a regular file"
	case m&(fs.ModeCharDevice|fs.ModeDevice) != 0:
		return e.Path + " is a device, not a regular file"
	}
	return e.Path + " is not a regular file"
}

// Open opens the regular file at path for reading and returns its info.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return open(path, os.Stat, func() (*os.File, error) { return os.OpenFile(path, openFlags, 0) })
}

// OpenIn is Open for the file called name in root.
func OpenIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	return open(name, root.Stat, func() (*os.File, error) { return root.OpenFile(name, openFlags, 0) })
}

func open(path string, stat func(string) (fs.FileInfo, error), openIt func() (*os.File, error)) (*os.File, fs.FileInfo, error) {
	before, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, &NotRegularError{path, before.Mode()}
	}
	f, err := openIt()
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &NotRegularError{path, info.Mode()}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// TooLargeError is ReadAll's error for a file larger than it may read.
type TooLargeError struct {
	Path        string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than the %d it may have", e.Path, e.Size, e.Limit)
}

// ReadAll reads the regular file at path whole, once it is known to hold
// at most limit bytes.
func ReadAll(path string, limit int64) ([]byte, error) {
	f, info, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, &TooLargeError{path, info.Size(), limit}
	}
	// A file that grew since it was looked at is read no further.
	var b bytes.Buffer
	b.Grow(int(info.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > limit {
		return nil, &TooLargeError{path, int64(b.Len()), limit}
	}
	return b.Bytes(), nil
}
