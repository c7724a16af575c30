package session

import (
	"fmt"

	"nexttoken/engine/chatprompt"
	"nexttoken/engine/checkpoint"
	"nexttoken/engine/tokenizer"
)

// LogitsModel is the name of the model-less session: a vocabulary and one
// vector of logits typed by hand, as in the worked example.
const LogitsModel = "logits"

// Model is what a session runs: a checkpoint with its tokenizer, or, for a
// LogitsModel session, only the vocabulary of the hand-typed logits.
type Model struct {
	Name       string
	Checkpoint *checkpoint.Model // nil for a LogitsModel session
	Tokenizer  tokenizer.Tokenizer

	// ChatTemplate is the Jinja source of the model's chat template (a
	// GGUF file's tokenizer.chat_template), "" if it has none.
	ChatTemplate string
	// Chat reads the prompts its chat template renders (SetChat), for
	// sessions with messages (Spec.Chat); nil until its template engine
	// is there.
	Chat *chatprompt.Tokenizer

	chat *Model // chatModel's
}

// SetName names m, and the model of its chat template's prompts
// (chatModel): a page names a model opened from files by them until their
// hash is known, and then by their hash.
func (m *Model) SetName(name string) {
	m.Name = name
	if m.chat != nil {
		m.chat.Name = name
	}
}

// Loader finds a model by the name a Spec gives.
type Loader func(name string) (*Model, error)

// LoadModel reads a llama2.c checkpoint and tokenizer file and checks that
// they belong together.
func LoadModel(name string, checkpointData, tokenizerData []byte) (*Model, error) {
	m, err := checkpoint.Read(checkpointData)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	return NewModel(name, m, tokenizerData)
}

// NewModel pairs a checkpoint already read with its tokenizer file and
// checks that they belong together.
func NewModel(name string, m *checkpoint.Model, tokenizerData []byte) (*Model, error) {
	v, err := tokenizer.Read(tokenizerData)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	if len(v.Pieces) != m.Config.VocabSize {
		return nil, vocabMismatch(name, len(v.Pieces), m.Config.VocabSize)
	}
	tok, err := tokenizer.New(v)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	return Pair(name, m, tok)
}

// Pair pairs a checkpoint with a tokenizer already made (a GGUF file's
// own) and checks that they belong together: a token for every logit.
func Pair(name string, m *checkpoint.Model, tok tokenizer.Tokenizer) (*Model, error) {
	if n := tok.VocabSize(); n != m.Config.VocabSize {
		return nil, vocabMismatch(name, n, m.Config.VocabSize)
	}
	return &Model{Name: name, Checkpoint: m, Tokenizer: tok}, nil
}

func vocabMismatch(name string, tokens, vocab int) error {
	return fmt.Errorf("model %s: the tokenizer has %d tokens but the checkpoint's vocabulary has %d", name, tokens, vocab)
}

// maxLogitsVocab bounds a hand-typed vocabulary; it is a teaching tool, and a
// link carrying it must stay small.
const maxLogitsVocab = 1024

func logitsModel(words []string) (*Model, error) {
	if len(words) == 0 || len(words) > maxLogitsVocab {
		return nil, fmt.Errorf("the vocabulary has %d tokens, want 1 to %d", len(words), maxLogitsVocab)
	}
	tok, err := tokenizer.NewWords(tokenizer.WordVocab(words))
	if err != nil {
		return nil, err
	}
	return &Model{Name: LogitsModel, Tokenizer: tok}, nil
}
