package play

import (
	"time"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// Engine runs the session the page shows. The controller sends it one
// request at a time and reads the answer, which may come before Send
// returns (Local, the session in the page) or later (a session in a
// worker): the controller assumes neither, and queues the user's actions
// while a request is out.
type Engine interface {
	Send(r Request, answer func(Answer))
}

// Op is what a request asks of the engine.
type Op int

// The requests. Every one but Show, Recompute and Rename changes the
// session and is answered with its Summary; Show with a Detail, Recompute
// with a Recomputed, Rename with nothing but an error.
const (
	Open       Op = iota // a new session: Spec
	Restore              // the session Spec, reached the cheap way when only its steps differ (Undo, Redo)
	Step                 // up to N steps, stopping early after Budget (Run's batches) or when the session ends
	Force                // Token at step Step
	EditLogit            // Token's logit at step Step set to Value
	SetSampler           // Settings from the next step on
	Rerun                // every step again with the next step's settings
	Reset                // back to the prompt, the next step's settings for step 0
	Switch               // path Path becomes the session's
	Delete               // path Path goes
	Show                 // the Detail of step Step, with Lens tokens a layer of the logit lens
	Recompute            // step Step again without the cache
	Rename               // the session's model is now called Spec.Model (a model from files, once their hash is in)
)

var opNames = [...]string{"open", "restore", "step", "force", "edit", "set sampler", "rerun", "reset", "switch", "delete", "show", "recompute", "rename"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op?"
}

// Request is one thing the controller asks of the engine.
type Request struct {
	Op      Op
	Spec    session.Spec     // Open, Restore; Rename's Model
	Step    int              // Force, EditLogit, Show, Recompute
	Token   int              // Force, EditLogit
	Value   float64          // EditLogit
	Path    int              // Switch, Delete
	N       int              // Step: at most this many
	Budget  time.Duration    // Step: stop after this long (0: no limit)
	Lens    int              // Show: tokens a layer of the logit lens; 0 leaves it out
	Rows    []int            // Show: tokens whose rows the detail holds besides its own (Detail.Rows)
	Query   string           // Show: the text of the tokens the detail lists besides, when not "" (Detail.Matches)
	Layer   int              // Show: the layer whose attention and cache rows the detail holds
	Compare CompareChoice    // Show: the compare card's chains to run on the step, when Open (Detail.Compare)
	Shown   bool             // Step: the answer carries the Detail of the step shown after it (ShownAfter), asked as Show's fields ask
	Set     sampler.Settings // SetSampler's settings

	// Keep are the settings the next step uses once an action that
	// changes the path is done (Force or EditLogit at a step taken,
	// Switch): the user's current settings, which a new branch inherits.
	// nil leaves the path's own.
	Keep *sampler.Settings
}

// Answer is the engine's reply to a request. On an error the session is
// as it was before the request.
type Answer struct {
	Err error

	Session *Summary            // after a request that changes the session
	Detail  *Detail             // Show's, or a Step's with Shown; valid until the next Show or change of the session (session.Session.Detail)
	Redo    *session.Recomputed // Recompute's

	// Stepped is how many steps a Step request took.
	Stepped int
	// Inherited are the settings a new branch had for its next step
	// before Keep replaced them, when they differed: the page says so.
	Inherited *sampler.Settings
	// Refill is what Switch did to the KV cache.
	Refill *session.Refill
}

// Summary is the session as the controller shows it between steps: the
// compact trace and what comes next, never a vector as long as the
// vocabulary. Trace and Tree are the engine's: read them until the next
// request, do not change them.
type Summary struct {
	Spec  session.Spec
	Model *Model
	Trace *session.Trace
	Next  *session.Step // the decision the next Step would make; nil when there is none
	Why   error         // why there is no next step: session.ErrStopped, or what went wrong
	Tree  []session.Path
	Texts []string // each path's text, when the tree has more than one path

	// Epoch counts the changes that rewrote a step still there (a fork, a
	// rerun, a switch, a new session; not a step, nor the last steps taken
	// back): views that keep what they drew start again when it moves, and
	// otherwise draw only the steps added or drop those taken back.
	Epoch int
}

// Steps is the number of steps taken.
func (s *Summary) Steps() int { return len(s.Trace.Steps) }

// ShownAfter is the step whose detail the page shows once steps are taken:
// the next one, or the last one taken once the session has ended (the KV
// card shows the cache as that step left it).
func ShownAfter(steps int, ended bool) int {
	if ended && steps > 0 {
		return steps - 1
	}
	return steps
}

// Model is what the page shows of a session's model, computed once per
// model.
type Model struct {
	Name  string
	Typed bool     // hand-typed logits: no layers, no cache, nothing to recompute
	Names []string // each token as it reads, white space made visible
	Raw   []string // each token's vocabulary entry as stored, for hand-typed logits (a search runs in the engine: Request.Query)
	raw   []string // every model's, in the engine

	// The network's shape; zero for hand-typed logits.
	Dim, Layers, Heads, KVHeads, HeadSize, SeqLen int
	SharedHead                                    bool        // the classifier is the token embedding
	Head                                          [][]float32 // every row of the classifier, when small enough to show number by number
	Extras                                        []string    // what its architecture adds to llama2.c's (checkpoint.Model.Extras)
	Windows                                       []int       // per layer, the latest positions its query reads (a sliding window), 0 for all
	Softcap                                       float32     // the logits are Softcap·tanh(z/Softcap) of the classifier's z; 0 for none

	// Chat says that the model's chat template is there (session.Model.Chat):
	// its sessions may be chats. Special marks each special token, then.
	Chat    bool
	Special []bool

	// Config is the network's configuration; nil for hand-typed logits.
	Config *session.Shape
}

// MultiplyAdds is a step's multiply-adds at position pos with the cache
// and recomputed without it, counted from the model's shape; 0 and 0 for
// hand-typed logits.
func (m *Model) MultiplyAdds(pos int) (cached, recomputed int) {
	if m.Config == nil {
		return 0, 0
	}
	return session.ShapeMultiplyAdds(*m.Config, pos)
}

// IsSpecial reports whether token id is one of the model's chat template's
// special tokens.
func (m *Model) IsSpecial(id int) bool {
	return m != nil && id >= 0 && id < len(m.Special) && m.Special[id]
}

// Label is how token id is labelled.
func (m *Model) Label(id int) string {
	if m == nil || id < 0 || id >= len(m.Names) {
		return "?"
	}
	return m.Names[id]
}
