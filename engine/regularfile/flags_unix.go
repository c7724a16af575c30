//go:build unix

package regularfile

import (
	"os"
	"syscall"
)

// openFlags open a file without waiting for a named pipe's writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
