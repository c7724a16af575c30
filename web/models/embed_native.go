//go:build !js || embedmodels

package models

import _ "embed"

// The command line embeds every model; the browser program fetches these.
// The embedmodels tag embeds them in a browser build too: the engine's
// tests under node (make jstest) use them as the native tests do.
var (
	//go:embed stories260K.bin
	stories260KCheckpoint []byte
	//go:embed tok512.bin
	tok512 []byte
)

func init() { embedded["stories260K"] = [2][]byte{stories260KCheckpoint, tok512} }
