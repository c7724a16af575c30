//go:build !js

package models

import _ "embed"

// The command line embeds every model; the browser program fetches these.
var (
	//go:embed stories260K.bin
	stories260KCheckpoint []byte
	//go:embed tok512.bin
	tok512 []byte
)

func init() { embedded["stories260K"] = [2][]byte{stories260KCheckpoint, tok512} }
