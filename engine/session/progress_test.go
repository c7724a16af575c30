package session_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// TestPrefillProgress prefills a prompt of 150 tokens a chunk at a time: the
// session is New's exactly; progress hears the first token alone, then
// chunks of at most PrefillChunk tokens up to the whole prompt; and an
// error from it stops the prefill with that error.
func TestPrefillProgress(t *testing.T) {
	spec := session.Spec{Model: "stories260K", Prompt: strings.Repeat("Once upon a time ", 30), Sampler: sampler.DefaultSettings(), Steps: 3}
	want, err := session.New(spec, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	var heard [][2]int
	got, err := session.NewWith(spec, models.Load, session.Options{Prefill: func(done, total int) error {
		heard = append(heard, [2]int{done, total})
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Trace(), want.Trace()) {
		t.Errorf("the watched session's trace differs from New's")
	}
	n := len(want.Trace().Prompt)
	ok := n > session.PrefillChunk && len(heard) > 1 && heard[0] == [2]int{1, n} && heard[len(heard)-1] == [2]int{n, n}
	for i := 1; ok && i < len(heard); i++ {
		step := heard[i][0] - heard[i-1][0]
		ok = heard[i][1] == n && step >= 1 && step <= session.PrefillChunk
	}
	if !ok {
		t.Errorf("a prompt of %d tokens: progress heard %v, want 1 token, then chunks of 1 to %d up to %d", n, heard, session.PrefillChunk, n)
	}
	stop := errors.New("stop")
	calls := 0
	_, err = session.NewWith(spec, models.Load, session.Options{Prefill: func(done, total int) error { calls++; return stop }})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a progress that stops: error %v after %d calls, want %v after 1", err, calls, stop)
	}
}

// TestNextChunk sizes a watched prefill's chunks to about PrefillSlice at
// the speed of the chunk before, one token to PrefillChunk.
func TestNextChunk(t *testing.T) {
	slice := session.PrefillSlice
	for _, tc := range []struct {
		n    int
		took time.Duration
		want int
	}{
		{1, slice / 10, 10},                     // a tenth of the slice a token
		{4, slice, 4},                           // as fast as the slice
		{1, 4 * slice / 3, 1},                   // slower than the slice: one token
		{1, 40 * slice, 1},                      // far slower: still one
		{8, slice / 1000, session.PrefillChunk}, // fast: at most PrefillChunk
		{3, 0, session.PrefillChunk},            // too fast for the clock
	} {
		if got := session.NextChunk(tc.n, tc.took); got != tc.want {
			t.Errorf("%d tokens in %v: next %d, want %d", tc.n, tc.took, got, tc.want)
		}
	}
}
