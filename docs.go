// Package nexttoken holds the files at the top of the repository that the
// programs ship: the documentation page that embeds live playgrounds.
package nexttoken

import _ "embed"

// IndexHTML is index.html, the reference documentation page: served at
// /docs/ by nexttoken serve and written to docs/index.html by export.
//
//go:embed index.html
var IndexHTML []byte
