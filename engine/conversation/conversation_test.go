package conversation

import (
	"errors"
	"strings"
	"testing"
)

// TestCheck: the roles and texts a conversation may hold, and why not.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		messages []Message
		want     string // "" for none
	}{
		{nil, ""},
		{[]Message{{"system", ""}, {"user", "Grüße 🙂\n"}, {"tool_call", "x"}, {"ассистент", "y"}}, ""},
		{[]Message{{"user", "Hi"}, {"", "x"}}, "message 2: not a message: the role is empty (want one such as user)"},
		{[]Message{{"the user", "x"}}, `message 1: not a message: the role "the user" has white space or a control character`},
		{[]Message{{"user\x00", "x"}}, `message 1: not a message: the role "user\x00" has white space or a control character`},
		{[]Message{{strings.Repeat("u", MaxRole+1), "x"}}, "message 1: not a message: the role has 33 bytes, more than 32"},
		{[]Message{{"user\xff", "x"}}, "message 1: not a message: the role is not valid UTF-8"},
		{[]Message{{"user", "\xff"}}, "message 1: not a message: the text is not valid UTF-8"},
	} {
		err := Check(c.messages)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.messages, err)
		case c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, ErrMessage)):
			t.Errorf("%q: %v, want %q", c.messages, err, c.want)
		}
	}
}
