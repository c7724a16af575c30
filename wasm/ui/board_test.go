package ui

import (
	"testing"

	"nexttoken/wasm/play"
)

// partPainter leaves part of its drawing for later, left times.
type partPainter struct {
	b      *board
	left   int
	paints int
}

func (p *partPainter) paint(play.Snapshot) {
	p.paints++
	if p.left > 0 {
		p.left--
		p.b.again(p)
	}
}

// TestBoardAgain: a view that leaves part of its drawing for later paints
// again at the next frame, once however often it asks, until it is done;
// a view gone from the page does not.
func TestBoardAgain(t *testing.T) {
	var frames []func()
	b := &board{frame: func(f func()) { frames = append(frames, f) }}
	v := &partPainter{b: b, left: 2}
	b.add(v)
	b.show(play.Snapshot{})
	b.again(v) // asked twice before the frame: one repaint
	for len(frames) > 0 {
		f := frames[0]
		frames = frames[1:]
		f()
	}
	if v.paints != 3 {
		t.Errorf("%d paints, want 3: the show and two frames", v.paints)
	}
	gone := &partPainter{b: b, left: 1}
	b.add(gone)
	b.show(play.Snapshot{})
	b.remove(gone)
	for _, f := range frames {
		f()
	}
	if gone.paints != 1 {
		t.Errorf("a view gone from the page painted %d times, want 1", gone.paints)
	}
}
