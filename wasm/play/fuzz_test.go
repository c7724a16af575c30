package play

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/session"
)

// script reads a fuzzer's bytes as a sequence of the user's actions.
type script struct {
	b []byte
}

func (s *script) next() (byte, bool) {
	if len(s.b) == 0 {
		return 0, false
	}
	v := s.b[0]
	s.b = s.b[1:]
	return v, true
}

func (s *script) n(m int) int {
	v, _ := s.next()
	return int(v) % m
}

var prompts = []string{"The cat", "The", "The mat sat", "cat on the mat", "The zebra", ""}

// chains are names the compare card's fields may be given, "kq" one the
// card says is wrong.
var chains = []string{"chain", "runc", "llama.cpp", "hf", "mirostat2", "kt", "kq", ""}

// play runs the actions the bytes say on r, at most limit of them, and
// says what it ran.
func play(r *rig, b []byte, limit int) []string {
	s := &script{b: b}
	var ran []string
	for len(ran) < limit {
		what, ok := playOne(r, s)
		if !ok {
			break
		}
		if what != "" {
			ran = append(ran, what)
		}
	}
	return ran
}

// playOne runs the next action the script says on r, and says what it
// ran ("" for none); false when the script has ended.
func playOne(r *rig, s *script) (string, bool) {
	op, ok := s.next()
	if !ok {
		return "", false
	}
	steps := r.c.sum.Steps()
	vocab := len(r.c.sum.Model.Names)
	var what string
	switch op % 22 {
	case 0, 1, 2:
		what = "step"
		r.c.Step()
	case 3:
		i := s.n(steps + 1)
		what = "select " + strconv.Itoa(i)
		r.c.Select(i)
	case 4:
		i, tok := s.n(steps+1), s.n(vocab)
		what = "force " + strconv.Itoa(i) + " " + strconv.Itoa(tok)
		r.c.Force(i, tok)
	case 5:
		i, tok, v := s.n(steps+1), s.n(vocab), float64(s.n(21)-10)
		if v == -10 {
			v = math.Inf(-1)
		}
		what = "edit " + strconv.Itoa(i) + " " + strconv.Itoa(tok)
		r.c.EditLogit(i, tok, v)
	case 6:
		v := float64(s.n(30)) / 10
		what = "temperature"
		r.c.SetSetting("temperature", v)
	case 7:
		what = "undo"
		r.c.Undo()
	case 8:
		what = "redo"
		r.c.Redo()
	case 9:
		what = "reset"
		r.c.Reset()
	case 10:
		what = "rerun"
		r.c.Rerun()
	case 11:
		if paths := len(r.c.sum.Tree); paths > 1 {
			id := 1 + s.n(paths-1)
			if s.n(2) == 0 {
				what = "switch " + strconv.Itoa(id)
				r.c.Switch(id)
			} else {
				what = "delete " + strconv.Itoa(id)
				r.c.Delete(id)
			}
		}
	case 12:
		what = "run"
		r.c.SetRunSteps(strconv.Itoa(1 + s.n(5)))
		r.c.Run()
	case 13:
		if r.c.sum.Model.Chat && r.c.sum.Spec.Chat != nil && s.n(2) == 0 {
			what = chatAction(r, s)
		} else if r.c.sum.Model.Chat && s.n(4) == 0 {
			what = "use chat true"
			r.c.UseChat(true)
		} else if !r.c.sum.Model.Typed {
			text := prompts[s.n(len(prompts))]
			what = "prompt " + text
			r.c.SetPrompt(text)
			if s.n(2) == 0 {
				r.c.EndPrompt()
			} else {
				r.host.wait(PromptPause)
			}
		}
	case 14:
		keys := []Key{{Name: "ArrowLeft"}, {Name: "ArrowRight"}, {Name: "z", Ctrl: true}, {Name: "z", Ctrl: true, Shift: true}, {Name: "Home"}, {Name: "End"}}
		k := keys[s.n(len(keys))]
		what = "key " + k.Name
		r.c.Press(k)
	case 15:
		what = "seed"
		r.c.SetSetting("seed", float64(1+s.n(5)))
	case 16:
		what = "ignore EOS"
		r.c.SetIgnoreEOS(s.n(2) == 0)
	case 17:
		what = "keep going"
		r.c.KeepGoing()
	case 18:
		switch s.n(3) {
		case 0:
			open := s.n(2) == 0
			what = "compare open " + strconv.FormatBool(open)
			r.c.SetCompareOpen(open)
		case 1:
			k, name := s.n(2), chains[s.n(len(chains))]
			what = "compare chain " + strconv.Itoa(k) + " " + name
			r.c.SetCompareChain(k, name)
		case 2:
			own := s.n(2) == 0
			what = "compare own " + strconv.FormatBool(own)
			r.c.SetCompareOwn(own)
		}
	case 19:
		l := s.n(3)
		what = "layer " + strconv.Itoa(l)
		r.c.ShowLayer(l)
	case 20:
		ids := []int{s.n(vocab), s.n(vocab)}
		what = "rows " + strconv.Itoa(ids[0]) + " " + strconv.Itoa(ids[1])
		r.c.WantRows(ids)
	case 21:
		q := []string{"", "x", "e", "Lily", "<0x", "zzzq"}[s.n(6)]
		what = "search " + strconv.Quote(q)
		r.c.Search(q)
	}
	r.settle()
	return what, true
}

// sameSession reports whether two specs are the same session.
func sameSession(a, b session.Spec) bool {
	return reflect.DeepEqual(link.Canonical(a), link.Canonical(b))
}

// FuzzActions plays random sequences of the user's actions and checks the
// rules that hold for any: Undo as many times as it can goes back to the
// start, Redo as many times goes forward to the end, the share link of the
// end reopens it exactly, the page's view and compare card too, and an
// engine that answers later ends where one that answers at once does.
func FuzzActions(f *testing.F) {
	f.Add(byte(0), []byte{0, 0, 3, 1, 4, 0, 2, 6, 20, 0, 7, 8})
	f.Add(byte(1), []byte{5, 0, 1, 30, 0, 0, 11, 0, 0})
	f.Add(byte(0), []byte{0, 0, 0, 4, 1, 5, 11, 1, 0, 14, 0, 14, 1})
	f.Add(byte(2), []byte{6, 10, 0, 0, 0, 4, 1, 100, 6, 15, 11, 0, 0, 12, 3})
	f.Add(byte(0), []byte{13, 2, 0, 0, 13, 1, 1, 7})
	f.Add(byte(1), []byte{18, 0, 0, 0, 18, 1, 1, 5, 18, 2, 0, 3, 0, 18, 1, 0, 6})
	f.Add(byte(3), []byte{13, 0, 2, 0, 13, 0, 1, 1, 2, 1, 0, 0, 13, 0, 4, 1, 13, 0, 1, 0, 3, 2, 13, 0, 3, 1, 7, 8, 13, 0, 0, 1})
	f.Fuzz(func(t *testing.T, model byte, b []byte) {
		if len(b) > 120 {
			return
		}
		spec := []session.Spec{toy(), worked(), stories(0.9), chatSpec()}[int(model)%4]
		r := newRig(t, spec)
		start := r.c.sum.Spec
		ran := play(r, b, 60)
		end, shown, page := r.c.sum.Spec, r.c.shown, r.c.page

		// The share link reopens the end exactly.
		share := r.c.ShareLink()
		again := newRig(t, spec)
		_, frag, _ := strings.Cut(share, "#")
		again.c.OpenAddress("", frag)
		again.settle()
		if !sameSession(again.c.sum.Spec, end) || again.c.shown != shown || again.c.page.View != page.View || again.c.page.compareLink() != page.compareLink() {
			t.Errorf("after %q the share link opened %+v at step %d, card %+v, want %+v at step %d, card %+v", ran,
				again.c.sum.Spec, again.c.shown, again.c.page.compareLink(), end, shown, page.compareLink())
		}
		if again.c.notice != "" {
			t.Errorf("after %q the share link opened with %q", ran, again.c.notice)
		}

		// An engine that answers later ends where one that answers at once
		// does.
		slow := newRigOn(t, &later{eng: engineOf(&Local{Load: load})}, spec)
		play(slow, b, 60)
		if !sameSession(slow.c.sum.Spec, end) || slow.c.shown != shown {
			t.Errorf("after %q an engine answering later ended at %+v step %d, want %+v step %d", ran, slow.c.sum.Spec, slow.c.shown, end, shown)
		}

		// Undo all the way goes back to the start; Redo as many times goes
		// forward to the end.
		undone := 0
		for ; r.c.Snapshot().CanUndo; undone++ {
			if undone > maxUndo {
				t.Fatalf("after %q Undo never ends", ran)
			}
			r.c.Undo()
			r.settle()
		}
		if !sameSession(r.c.sum.Spec, start) {
			t.Errorf("after %q Undo went back to %+v, want the start %+v", ran, r.c.sum.Spec, start)
		}
		for range undone {
			r.c.Redo()
			r.settle()
		}
		if !sameSession(r.c.sum.Spec, end) || r.c.shown != shown {
			t.Errorf("after %q Redo went forward to %+v step %d, want the end %+v step %d", ran, r.c.sum.Spec, r.c.shown, end, shown)
		}
	})
}

// FuzzPageLink reads the page's part of addresses, a share link's and the
// query's parameters over it: every part left out is said in a sentence,
// an embed's in its error, and the page it opens is one its share link carries, which reopens it
// without a word.
func FuzzPageLink(f *testing.F) {
	hfOwn := CompareLink{Chains: [2]string{"chain", "hf"}, Own: true}.records()[0]
	for _, q := range []string{"", "view=kv&at=2&compare=runc,kt&compare_own=1", "embed=1&theme=dark&view=compare",
		"view=nope&at=0&compare=chain&compare_own=yes&theme=x", "at=9&AT=1&compare=chain,hf%", "compare=,&view=&theme=", "embed=yes&view=nope&theme=x"} {
		f.Add("", 0, byte(tagCompare), hfOwn.Body, q)
		f.Add("tokens", 3, byte(2), "", q)
	}
	f.Add("kvx", 4097, byte(tagCompare), "\x05chain", "")
	f.Add("compare", 1, byte(tagCompare), "\x00\x00\x02", "compare_own=0")
	f.Fuzz(func(t *testing.T, view string, at int, tag byte, body, rawQuery string) {
		shared := link.Page{View: view, At: at, Records: []link.Record{{Tag: 1 + int(tag)%31, Body: body}}}
		if _, err := link.Encode(link.State{Spec: toy(), Page: shared}); err != nil {
			return // no share link carries it
		}
		page, at, notes := openPage(shared, rawQuery)
		if page.EmbedError != "" && !page.Embed {
			t.Errorf("openPage(%+v, %q): an embed error, %q, on a page that is not embedded", shared, rawQuery, page.EmbedError)
		}
		sentences := slices.Clone(notes)
		if page.EmbedError != "" {
			sentences = append(sentences, page.EmbedError)
		}
		for _, n := range sentences {
			if !strings.HasPrefix(n, "The link's ") || !strings.HasSuffix(n, ".") {
				t.Errorf("openPage(%+v, %q): %q", shared, rawQuery, n)
			}
		}
		at = min(at, 4096) // the controller shows a step the session has
		carried := page.linkPage(at)
		if _, err := link.Encode(link.State{Spec: toy(), Page: carried}); err != nil {
			t.Fatalf("openPage(%+v, %q) = %+v, at %d, which no share link carries: %v", shared, rawQuery, page, at, err)
		}
		again, againAt, more := openPage(carried, "")
		if again.View != page.View || again.compareLink() != page.compareLink() || againAt != at || len(more) > 0 {
			t.Fatalf("openPage(%+v, %q) = %+v, at %d; its link %+v opens %+v, at %d, %q", shared, rawQuery, page, at, carried, again, againAt, more)
		}
	})
}
