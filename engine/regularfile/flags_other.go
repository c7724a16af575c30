//go:build !unix

package regularfile

import "os"

// openFlags open a file for reading; this system has no O_NONBLOCK, and
// relies on the look before opening.
const openFlags = os.O_RDONLY
