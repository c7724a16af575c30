package ui

import (
	"strings"

	"nexttoken/engine/session"
)

// Vocab labels a model's tokens the way every view shows them, computed
// once per model: a 32,000-token vocabulary is not re-read per render.
type Vocab struct {
	Model string   // the model's name
	Names []string // each token's text as it reads, white space made visible
	Raw   []string // each token's vocabulary entry as stored
}

func newVocab(m *session.Model) *Vocab {
	n := m.Tokenizer.VocabSize()
	v := &Vocab{Model: m.Name, Names: make([]string, n), Raw: make([]string, n)}
	for id := range n {
		v.Names[id] = visible(m.Tokenizer.Piece(-1, id))
		v.Raw[id] = m.Tokenizer.Token(id)
	}
	return v
}

// Name is how token id is labelled.
func (v *Vocab) Name(id int) string {
	if v == nil || id < 0 || id >= len(v.Names) {
		return "?"
	}
	return v.Names[id]
}

// Matching lists up to limit tokens whose text contains q, ignoring case.
func (v *Vocab) Matching(q string, limit int) []int {
	q = strings.ToLower(q)
	var ids []int
	for id, name := range v.Names {
		if strings.Contains(strings.ToLower(name), q) || strings.Contains(strings.ToLower(v.Raw[id]), q) {
			ids = append(ids, id)
			if len(ids) == limit {
				break
			}
		}
	}
	return ids
}
