package play

import (
	"strings"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
)

// TestRenameModel runs a session on a model from files while their hash
// is not in, named by a pending Ref, and then renames it (RenameModel),
// on an engine that answers at once and on one that answers later: while
// pending, the address bar keeps the last link (no link can name the
// model); once renamed, the session, its history and the address name the
// hash, with no undo entry of its own, and Undo walks back through the
// renamed history to the session before the files.
func TestRenameModel(t *testing.T) {
	pending := modelfile.Ref{Size: 1000, Name: "m.gguf"}.String()
	final := modelfile.Ref{Hash: "0123456789abcdef", Size: 1000, Name: "m.gguf"}.String()
	files := func(name string) (*session.Model, error) {
		if name == pending || name == final {
			return load("stories260K")
		}
		return load(name)
	}
	for _, tc := range []struct {
		name string
		eng  Engine
	}{
		{"at once", engineOf(&Local{Load: files})},
		{"later", &later{eng: engineOf(&Local{Load: files})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRigOn(t, tc.eng, stories(0))
			before := r.host.address
			if before == "" {
				t.Fatal("no address for the first session")
			}
			r.c.OpenModel(pending)
			r.settle()
			r.c.Step()
			r.c.Step()
			r.settle()
			if got := r.c.sum.Spec.Model; got != pending || r.c.sum.Steps() != 2 {
				t.Fatalf("the session is on %q with %d steps, want %q and 2", got, r.c.sum.Steps(), pending)
			}
			if r.host.address != before {
				t.Errorf("while the hash is not in, the address became %q, want %q kept", r.host.address, before)
			}
			undos := len(r.c.undo)
			r.c.RenameModel(pending, final)
			r.settle()
			if got := r.c.sum.Spec.Model; got != final || r.c.sum.Steps() != 2 || len(r.c.undo) != undos {
				t.Errorf("renamed: on %q with %d steps and %d undo entries, want %q, 2 and %d", got, r.c.sum.Steps(), len(r.c.undo), final, undos)
			}
			_, frag, _ := strings.Cut(r.host.address, "#")
			if st, err := link.Decode(frag); err != nil || st.Spec.Model != final || st.Spec.Steps != 2 {
				t.Errorf("the address %q reads as %+v, %v; want 2 steps on %q", r.host.address, st.Spec, err, final)
			}
			for range 2 {
				r.c.Undo()
				r.settle()
				if got := r.c.sum.Spec.Model; got != final {
					t.Errorf("undone to %d steps on %q, want %q", r.c.sum.Steps(), got, final)
				}
			}
			r.c.Undo()
			r.settle()
			if got := r.c.sum.Spec.Model; got != "stories260K" || r.c.notice != "" {
				t.Errorf("the session before the files: %q (%s)", got, r.c.notice)
			}
		})
	}
}
