package play

// Split is the page's engine when some models run elsewhere: each
// request goes to Near, the engine in the page, or to Far, a worker's, by
// the model of the session it is about. Open and Restore go by their
// Spec's model (Far when InFar says it holds it); every other request
// goes to the engine of the session shown, which changes only when an
// Open or Restore succeeds. The controller sees one engine: Split counts
// the epoch on from where it was whenever the session moves between the
// two, whose own epochs could coincide.
type Split struct {
	Near, Far Engine
	InFar     func(model string) bool

	far   bool   // the session shown is Far's
	shift [2]int // what each engine's epochs are shifted by
	epoch int    // the last epoch answered
}

// Send sends r to the engine it is for.
func (s *Split) Send(r Request, answer func(Answer)) {
	far := s.far
	if r.Op == Open || r.Op == Restore {
		far = s.InFar(r.Spec.Model)
	}
	eng := s.Near
	if far {
		eng = s.Far
	}
	eng.Send(r, func(a Answer) {
		if a.Session != nil {
			moved := far != s.far
			s.far = far
			i := side(far)
			if moved {
				s.shift[i] = s.epoch + 1 - a.Session.Epoch
			}
			sum := *a.Session // the engine's own stays as it is: a Remote's mirror reads it
			sum.Epoch += s.shift[i]
			s.epoch = sum.Epoch
			a.Session = &sum
		}
		answer(a)
	})
}

func side(far bool) int {
	if far {
		return 1
	}
	return 0
}

// Concurrent reports whether the session shown runs in the worker, on a
// thread of its own: Run sends the next batch as soon as one is answered.
func (s *Split) Concurrent() bool { return s.far }
