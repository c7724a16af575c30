package session

import "nexttoken/engine/transformer"

// Transformer is the session's run state, for the tests' checks of the
// cache and the latest pass; nil for a LogitsModel session.
func (s *Session) Transformer() *transformer.Transformer { return s.tr }
