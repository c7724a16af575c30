// Package conversation is a chat as a session holds it and a link carries
// it: messages, each a role and its text. It depends on nothing, so that
// the chat template's engine (package chat, which runs in a WebAssembly
// program of its own in the page) and the session read one type.
//
// A role is what a chat template switches on: system, user, assistant,
// or any other the template knows. Check's rules are every caller's:
// one to MaxRole characters, none of them white space or a control
// character; the content is any UTF-8 text, empty included.
package conversation

import (
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// MaxRole bounds a role's length in bytes: real ones are words.
const MaxRole = 32

// ErrMessage is what every error of Check wraps.
var ErrMessage = errors.New("not a message")

// CheckRole says what is wrong with a role, if anything.
func CheckRole(role string) error {
	switch {
	case role == "":
		return fmt.Errorf("%w: the role is empty (want one such as user)", ErrMessage)
	case len(role) > MaxRole:
		return fmt.Errorf("%w: the role has %d bytes, more than %d", ErrMessage, len(role), MaxRole)
	case !utf8.ValidString(role):
		return fmt.Errorf("%w: the role is not valid UTF-8", ErrMessage)
	}
	for _, r := range role {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("%w: the role %s has white space or a control character", ErrMessage, strconv.Quote(role))
		}
	}
	return nil
}

// Check says what is wrong with messages, if anything, naming the message
// by its number from 1.
func Check(messages []Message) error {
	for i, m := range messages {
		if err := CheckRole(m.Role); err != nil {
			return fmt.Errorf("message %d: %w", i+1, err)
		}
		if !utf8.ValidString(m.Content) {
			return fmt.Errorf("message %d: %w: the text is not valid UTF-8", i+1, ErrMessage)
		}
	}
	return nil
}
