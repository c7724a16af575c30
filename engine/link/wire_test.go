package link

import (
	"bytes"
	"encoding/base64"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/conversation"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// Hostile share links, written with the package's own writer but without
// check, so that each breaks one rule.

// fragment is a share link of flags and data.
func fragment(flags byte, data []byte) string {
	return prefix + base64.RawURLEncoding.EncodeToString(append([]byte{flags}, data...))
}

// unchecked writes s as Encode would, skipping check and compression.
func unchecked(s State) []byte {
	var w writer
	w.state(s)
	return w
}

// hostile is s written as Encode would, with the flags of the sections it
// holds, skipping check and compression.
func hostile(s State) string {
	var w writer
	flags := w.state(s)
	return fragment(flags, w)
}

// changes is the default session with changes of settings.
func changes(c ...session.Change) State {
	return spec(func(s *session.Spec) { s.Changes = c })
}

// seeded is the default session's data up to its seed: all but its three
// counts, each 0.
func seeded() writer {
	w := writer(unchecked(State{Spec: catalog.Default()}))
	return w[:len(w)-3]
}

// then appends uints to w.
func then(w writer, xs ...uint64) []byte {
	for _, x := range xs {
		w.uint(x)
	}
	return w
}

// spec is Default changed by edit, as a State.
func spec(edit func(s *session.Spec)) State {
	s := State{Spec: catalog.Default()}
	edit(&s.Spec)
	return s
}

// tokens is a logits session; its model, prompt and steps can be edited.
func tokens(vocab []string, logits []float64, edit func(s *session.Spec)) State {
	return spec(func(s *session.Spec) {
		s.Model, s.Prompt, s.Vocab, s.Logits = session.LogitsModel, "", vocab, logits
		edit(s)
	})
}

func keep(*session.Spec) {}

// noPrompt is the default session without its prompt, as a chat has.
func noPrompt() session.Spec {
	s := catalog.Default()
	s.Prompt = ""
	return s
}

var six = []string{"a", "b", "c", "d", "e", "f"}

// bomb is a megabyte of zeros, compressed to about a kilobyte.
var bomb = fragment(deflated, deflate(make([]byte, 1<<20)))

// twoE400 is a logits session whose one logit is 2e400, beyond a float64.
func twoE400() []byte {
	w := unchecked(tokens([]string{"a"}, []float64{1}, keep))
	// Replace the logit 1 (u = 2, e = 0) and the two counts after it.
	return then(w[:len(w)-4], 2<<1, 400<<1, 0, 0)
}

// withExtras is the default session's data, then an extras section of
// records, flagged.
func withExtras(records ...record) string {
	return withExtrasOf(catalog.Default(), hasExtras, records...)
}

// withExtrasOf is spec's data, then an extras section of records, with
// flags.
func withExtrasOf(spec session.Spec, flags byte, records ...record) string {
	w := writer(unchecked(State{Spec: spec}))
	w.int(len(records))
	for _, r := range records {
		w.uint(r.tag)
		w.string(string(r.body))
	}
	return fragment(flags, w)
}

// llamaEntries is the body of a llama record: a count, then the given
// fields as they are, uints.
func llamaEntries(n int, fields ...uint64) writer {
	var w writer
	w.int(n)
	for _, f := range fields {
		w.uint(f)
	}
	return w
}

// mirostat2 is an entry of a llama record for settings k: no sequence,
// mirostat 2, tau 5 (u = 10, e = 0), eta 0.1 (u = 2, e = −1, zig-zag 1),
// no DRY.
func mirostat2(k uint64) []uint64 { return []uint64{k, 0, 2, 10, 0, 2, 1, 0, 0, 0, 0, 0, 0} }

// twoChanges is a tree of one branch with two changes: with the default
// session, tag 34 numbers three settings, the session's and the branch's
// two.
func twoChanges() []session.Branch {
	set := sampler.DefaultSettings()
	return []session.Branch{{Steps: 9, Changes: []session.Change{{Step: 2, Sampler: set}, {Step: 3, Sampler: set}}}}
}

// pageRecord is a record of the page's, of tag 1, whose bytes link does
// not read.
var pageRecord = record{1, writer("\x05chain\x02hf\x00")}

var decodeErrors = []struct {
	name, fragment, err string
}{
	{"empty", "", `"" does not start with "s1."`},
	{"hash", "#s1.AA", `"#s1.AA" does not start with "s1."`},
	{"anchor", "top", `"top" does not start with "s1."`},
	{"newer version", "s9.AAAA", `format "s9", but this nexttoken reads only s1 (was the link made by a newer nexttoken?)`},
	{"much newer version", "s12.x", `format "s12", but this nexttoken reads only s1`},
	{"no data", "s1.", "no data"},
	{"one character", "s1.A", "not base64url: illegal base64 data at input byte 0"},
	{"garbage", "s1.%%%not-a-state", "not base64url: illegal base64 data at input byte 0"},
	{"padding", "s1.AA==", "not base64url"},
	{"standard alphabet", "s1.AA+/", "not base64url"},
	{"too long", prefix + strings.Repeat("A", MaxFragment), "16387 characters, more than 16384"},
	{"unknown flags", fragment(0x80, unchecked(State{Spec: catalog.Default()})), "unknown flags 0x80 (was the link made by a newer nexttoken?)"},
	{"not deflate", fragment(deflated, []byte{0xff, 0xff, 0xff}), "the compressed data is corrupt"},
	{"deflate cut short", fragment(deflated, deflate(unchecked(State{Spec: catalog.Default()}))[:5]), "the compressed data ends early"},
	{"after the compressed data", fragment(deflated, append(deflate(unchecked(State{Spec: catalog.Default()})), 0)), "1 bytes after the compressed data"},
	{"bomb", bomb, "the data decompresses to more than 65536 bytes"},
	{"just too big", fragment(deflated, deflate(make([]byte, MaxDecoded+1))), "more than 65536 bytes"},
	{"just fits, then trailing bytes", fragment(deflated, deflate(append(unchecked(State{Spec: catalog.Default()}),
		make([]byte, MaxDecoded-len(unchecked(State{Spec: catalog.Default()})))...))), "65503 bytes after the last field"},

	{"cut short", fragment(0, unchecked(State{Spec: catalog.Default()})[:8]), "prompt: 7 bytes, but only 3 remain"},
	{"cut after seed", fragment(0, seeded()), "vocab: the data ends early"},
	{"trailing byte", fragment(0, append(unchecked(State{Spec: catalog.Default()}), 0)), "1 bytes after the last field"},
	{"wider than 64 bits", fragment(0, bytes.Repeat([]byte{0xff}, 11)), "model: a number wider than 64 bits"},
	{"length beyond int", fragment(0, then(nil, math.MaxUint64)), "model: 18446744073709551615 is too large"},
	{"long string", fragment(0, then(nil, 1e9)), "model: 1000000000 bytes, but only 0 remain"},
	{"a billion tokens", fragment(0, then(seeded(), 1e9)), "vocab: 1000000000 entries, more than 1024"},
	{"more tokens than bytes", fragment(0, then(seeded(), 1024, 1, 0)), "vocab: 1024 entries cannot fit in the 2 bytes that remain"},
	{"a billion forced tokens", fragment(0, then(seeded(), 0, 1e9, 0)), "forced: 1000000000 entries cannot fit in the 1 bytes that remain"},
	{"edits beyond memory", fragment(0, then(seeded(), 0, 0, 1<<62)), "edits: 4611686018427387904 entries cannot fit in the 0 bytes that remain"},
	{"changes flagged, none there", fragment(hasChanges, unchecked(State{Spec: catalog.Default()})), "changes: the data ends early"},
	{"a billion changes", fragment(hasChanges, then(seeded(), 0, 0, 0, 1e9)), "changes: 1000000000 entries, more than 4096"},
	{"more changes than bytes", fragment(hasChanges, then(seeded(), 0, 0, 0, 4096, 1, 0)), "changes: 4096 entries cannot fit in the 2 bytes that remain"},
	{"a change cut short", fragment(hasChanges, then(seeded(), 0, 0, 0, 1, 5, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), "changes: 20 bytes, but only 10 remain"},
	{"extras flagged, none there", fragment(hasExtras, unchecked(State{Spec: catalog.Default()})), "extras: the data ends early"},
	{"too many records", fragment(hasExtras, then(unchecked(State{Spec: catalog.Default()}), 65)), "extras: 65 entries, more than 64"},
	{"more records than bytes", fragment(hasExtras, then(unchecked(State{Spec: catalog.Default()}), 3, 1, 0)), "extras: 3 entries cannot fit in the 2 bytes that remain"},
	{"a record cut short", fragment(hasExtras, then(unchecked(State{Spec: catalog.Default()}), 1, 1, 5, 0)), "extras: 5 bytes, but only 1 remain"},
	{"a record beyond an int", fragment(hasExtras, then(unchecked(State{Spec: catalog.Default()}), 1, 9, math.MaxUint64)), "extras: 18446744073709551615 is too large"},
	{"tag 0", withExtras(record{0, pageRecord.body}), "extras: record 0 has tag 0, not above 0"},
	{"a tag twice", withExtras(record{5, nil}, record{5, nil}), "extras: record 1 has tag 5, not above 5"},
	{"tags out of order", withExtras(record{7, nil}, pageRecord), "extras: record 1 has tag 1, not above 7"},
	{"after the extras", fragment(hasExtras, then(unchecked(State{Spec: catalog.Default()}), 1, 9, 0, 0)), "1 bytes after the last field"},
	{"a page record cut short", fragment(hasExtras, then(unchecked(State{Spec: catalog.Default()}), 1, 1, 9, 5)), "extras: 9 bytes, but only 1 remain"},
	{"a session record of a newer nexttoken", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagChat + 1, nil}),
		"extras: record 0 has tag 36, which changes the session, but this nexttoken does not know it"},
	{"a chat empty", withExtrasOf(noPrompt(), hasExtras|changesSession, record{tagChat, nil}), "chat: the data ends early"},
	{"a chat of too many messages", withExtrasOf(noPrompt(), hasExtras|changesSession, record{tagChat, llamaEntries(65, make([]uint64, 2*65+1)...)}),
		"chat: 65 entries, more than 64"},
	{"a chat of more messages than bytes", withExtrasOf(noPrompt(), hasExtras|changesSession, record{tagChat, llamaEntries(3, 0, 0, 1)}),
		"chat: 3 entries cannot fit in the 3 bytes that remain"},
	{"a chat's generation prompt of 2", withExtrasOf(noPrompt(), hasExtras|changesSession, record{tagChat, llamaEntries(0, 2)}),
		"chat: the generation prompt is 2, not 0 or 1"},
	{"a chat, a byte more", withExtrasOf(noPrompt(), hasExtras|changesSession, record{tagChat, llamaEntries(0, 1, 0)}),
		"chat: 1 bytes after the record's last field"},
	{"a chat's message cut short", withExtrasOf(noPrompt(), hasExtras|changesSession, record{tagChat, then(llamaEntries(1), 4, 'u', 's')}),
		"chat: 4 bytes, but only 2 remain"},
	{"a chat and a prompt", hostile(spec(func(s *session.Spec) { s.Chat = &session.Chat{} })), "chat: a session has a prompt or a chat, not both"},
	{"a chat of a role that is none", hostile(spec(func(s *session.Spec) {
		s.Prompt, s.Chat = "", &session.Chat{Messages: []conversation.Message{{Role: "", Content: "Hi"}}}
	})), "chat: message 1: not a message: the role is empty"},
	{"a chat of hand-typed logits", hostile(tokens(six, make([]float64, 6), func(s *session.Spec) { s.Chat = &session.Chat{} })), "chat: model=logits has no chat"},
	{"a chat of too much text", hostile(spec(func(s *session.Spec) {
		s.Prompt, s.Chat = "", &session.Chat{Messages: []conversation.Message{{Role: "user", Content: strings.Repeat("x", MaxPrompt)}, {Role: "user", Content: "x"}}}
	})), "chat: the messages' texts have 4097 bytes together, more than 4096"},
	{"ignore_eos of no settings", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagIgnoreEOS, llamaEntries(0)}),
		"ignore_eos: no settings"},
	{"ignore_eos empty", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagIgnoreEOS, nil}),
		"ignore_eos: the data ends early"},
	{"ignore_eos of more settings than there are", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagIgnoreEOS, llamaEntries(2, 0, 1)}),
		"ignore_eos: 2 entries, more than 1"},
	{"ignore_eos of a change not there", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagIgnoreEOS, llamaEntries(1, 1)}),
		"ignore_eos: settings 1, not above -1 and below the 1 settings"},
	{"ignore_eos of a branch's change not there", withExtrasOf(catalog.Default(), hasExtras|changesSession,
		record{tagTree, treeRecord(twoChanges())}, record{tagIgnoreEOS, llamaEntries(1, 3)}),
		"ignore_eos: settings 3, not above -1 and below the 3 settings"},
	{"ignore_eos twice", withExtrasOf(changes(session.Change{Step: 1, Sampler: sampler.DefaultSettings()}).Spec, hasChanges|hasExtras|changesSession,
		record{tagIgnoreEOS, llamaEntries(2, 1, 1)}), "ignore_eos: settings 1, not above 1"},
	{"ignore_eos, a byte more", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagIgnoreEOS, llamaEntries(1, 0, 0)}),
		"ignore_eos: 1 bytes after the record's last field"},
	{"ignore_eos without flag bit 4", withExtrasOf(catalog.Default(), hasExtras, record{tagIgnoreEOS, llamaEntries(1, 0)}),
		"extras: flag bit 4 is false, but a record that changes the session is true"},
	{"a tree of no branches", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagTree, llamaEntries(0)}), "tree: no branches"},
	{"a tree of too many branches", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagTree, llamaEntries(257, make([]uint64, 6*257)...)}),
		"tree: 257 entries, more than 256"},
	{"a tree of more branches than bytes", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagTree, llamaEntries(2, 0, 0, 0, 0, 0, 0)}),
		"tree: 2 entries cannot fit in the 6 bytes that remain"},
	{"a branch with more changes than bytes", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagTree, llamaEntries(1, 0, 0, 0, 0, 0, 9)}),
		"tree: 9 entries cannot fit in the 0 bytes that remain"},
	{"a tree, a byte more", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagTree, llamaEntries(1, 0, 0, 0, 0, 0, 0, 0)}),
		"tree: 1 bytes after the record's last field"},
	{"a branch from a later path", hostile(spec(func(s *session.Spec) { s.Branches = []session.Branch{{From: 1, Steps: 1}} })),
		"tree: branch 1: it leaves path 1: want a path before it, 0 to 0"},
	{"a branch beyond the session's steps", hostile(spec(func(s *session.Spec) { s.Branches = []session.Branch{{At: 1, Steps: 2}} })),
		"tree: branch 1: it leaves path 0 at step 1 and has 2 steps: want 0 ≤ at ≤ 0"},
	{"a branch of too many steps", hostile(spec(func(s *session.Spec) { s.Branches = []session.Branch{{Steps: 4097}} })),
		"tree: branch 1: steps: "},
	{"a branch's edit that is +Inf", hostile(spec(func(s *session.Spec) {
		s.Branches = []session.Branch{{Steps: 1, Edits: []session.Edit{{Token: 1, Logit: math.Inf(1)}}}}
	})), "tree: branch 1: edit 0: logit +Inf is neither a finite number nor -inf"},
	{"a branch's change out of order", hostile(spec(func(s *session.Spec) {
		set := sampler.DefaultSettings()
		s.Branches = []session.Branch{{Steps: 9, Changes: []session.Change{{Step: 3, Sampler: set}, {Step: 2, Sampler: set}}}}
	})), "tree: branch 1: change 1: step 2 does not come after step 3"},
	{"a session record, not flagged", withExtras(record{tagLlama, llamaEntries(1, mirostat2(0)...)}),
		"extras: flag bit 4 is false, but a record that changes the session is true"},
	{"flagged, no session record", withExtrasOf(catalog.Default(), hasExtras|changesSession, pageRecord),
		"extras: flag bit 4 is true, but a record that changes the session is false"},
	{"flagged, no extras", fragment(changesSession, unchecked(State{Spec: catalog.Default()})),
		"extras: flag bit 4 says a record changes the session, but there is no extras section"},
	{"llama settings of a change not there", withExtrasOf(llamaSpec(), hasExtras|changesSession, record{tagLlama, llamaEntries(1, mirostat2(1)...)}),
		"llama: settings 1, not above -1 and at most the 0 changes"},
	{"llama settings twice", withExtrasOf(changes(session.Change{Step: 1, Sampler: llamaSpec().Sampler}).Spec, hasChanges|hasExtras|changesSession,
		record{tagLlama, llamaEntries(2, append(mirostat2(1), mirostat2(1)...)...)}), "llama: settings 1, not above 1"},
	{"llama settings, two entries in one's room", withExtrasOf(llamaSpec(), hasExtras|changesSession, record{tagLlama, llamaEntries(2, mirostat2(0)...)}),
		"llama: 2 entries, more than 1"},
	{"llama settings cut short", withExtrasOf(llamaSpec(), hasExtras|changesSession, record{tagLlama, llamaEntries(1, mirostat2(0)[:12]...)}),
		"llama: 1 entries cannot fit in the 12 bytes that remain"},
	{"llama settings, a byte more", withExtrasOf(llamaSpec(), hasExtras|changesSession, record{tagLlama, llamaEntries(1, append(mirostat2(0), 0)...)}),
		"llama: 1 bytes after the record's last field"},
	{"mirostat in the chain's mode", withExtrasOf(catalog.Default(), hasExtras|changesSession, record{tagLlama, llamaEntries(1, mirostat2(0)...)}),
		"sampler: mirostat is llama.cpp's: it must be 0 in chain mode, not 2"},

	{"model", fragment(0, unchecked(spec(func(s *session.Spec) { s.Model = "gpt2" }))), `model: "gpt2" is not one of logits, toy, stories260K`},
	{"model, invalid UTF-8", fragment(0, unchecked(spec(func(s *session.Spec) { s.Model = "\xff" }))), `model: "\xff" is not one of`},
	{"prompt too long", fragment(0, unchecked(spec(func(s *session.Spec) { s.Prompt = strings.Repeat("a", 4097) }))), "prompt: 4097 bytes, more than 4096"},
	{"prompt, invalid UTF-8", fragment(0, unchecked(spec(func(s *session.Spec) { s.Prompt = "a\xffb" }))), "prompt: not valid UTF-8"},
	{"steps", fragment(0, unchecked(spec(func(s *session.Spec) { s.Steps = 4097 }))), `steps: "4097" is outside [0, 4096]`},
	{"mode", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.Mode = "greedy" }))), `sampler: "greedy" is not one of chain, runc, llama.cpp, hf`},
	{"empty mode", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.Mode = "" }))), `sampler: "" is not one of chain, runc, llama.cpp, hf`},
	{"infinite temperature", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.Temperature = math.Inf(1) }))), "sampler: temperature: +Inf is not a number from 0 to 100"},
	{"masked top_p", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.TopP = math.Inf(-1) }))), "sampler: top_p: -Inf is not a number from 0 to 1"},
	{"min_p", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.MinP = 1.5 }))), "sampler: min_p: 1.5 is not a number from 0 to 1"},
	{"seed beyond a float64", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.Seed = math.MaxUint64 }))),
		"sampler: seed: 1.8446744073709552e+19 is not a whole number from 1 to 9,007,199,254,740,991"},
	{"top_k beyond 2^20", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.TopK = 1<<20 + 1 }))),
		"sampler: top_k: 1,048,577 is not a whole number from 0 to 1,048,576"},
	{"seed", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.Seed = 0 }))), "sampler: seed: 0 is not a whole number from 1 to 9,007,199,254,740,991"},
	{"run.c with top-k", fragment(0, unchecked(spec(func(s *session.Spec) { s.Sampler.Mode, s.Sampler.TopK = sampler.RunC, 3 }))), "sampler: run.c has no top-k"},
	{"vocab of a model", fragment(0, unchecked(spec(func(s *session.Spec) { s.Vocab, s.Logits = []string{"a"}, []float64{1} }))), "logits: goes with model=logits, not model=toy"},
	{"forced step", fragment(0, unchecked(spec(func(s *session.Spec) { s.Forced = []session.Force{{Step: 4097, Token: 1}} }))), "forced token 0: step 4097 is outside [0, 4096]"},
	{"edit step", fragment(0, unchecked(spec(func(s *session.Spec) {
		s.Edits = []session.Edit{{Step: 1, Token: 1}, {Step: 5000, Token: 1}}
	}))), "edit 1: step 5000 is outside [0, 4096]"},
	{"edit +Inf", fragment(0, unchecked(spec(func(s *session.Spec) { s.Edits = []session.Edit{{Logit: math.Inf(1)}} }))), "edit 0: logit +Inf is neither a finite number nor -inf"},
	{"change at step 0", hostile(changes(session.Change{Step: 0, Sampler: sampler.DefaultSettings()})),
		"change 0: step 0: want a step ≥ 1 (step 0's settings are the spec's Sampler)"},
	{"changes out of order", hostile(changes(session.Change{Step: 3, Sampler: sampler.DefaultSettings()}, session.Change{Step: 2, Sampler: sampler.DefaultSettings()})),
		"change 1: step 2 does not come after step 3 of the change before"},
	{"change beyond the steps a link has", hostile(changes(session.Change{Step: 4097, Sampler: sampler.DefaultSettings()})),
		"change 0: step 4097 is outside [1, 4096]"},
	{"change without a mode", hostile(changes(session.Change{Step: 1, Sampler: sampler.Settings{Seed: 1}})),
		`change 0: sampler: "" is not one of chain, runc, llama.cpp, hf`},
	{"change with a bad top_p", hostile(changes(session.Change{Step: 1, Sampler: sampler.Settings{Mode: sampler.Chain, TopP: 2, Seed: 1}})),
		"change 0: sampler: top_p: 2 is not a number from 0 to 1"},
	{"change to run.c with top-k", hostile(changes(session.Change{Step: 1, Sampler: sampler.Settings{Mode: sampler.RunC, TopK: 2, Seed: 1}})),
		"change 0: sampler: run.c has no top-k"},
	{"at flagged, none there", fragment(hasAt, unchecked(State{Spec: catalog.Default()})), "at: the data ends early"},
	{"at 0", fragment(hasAt, then(seeded(), 0, 0, 0, 0)), "at: step 0, but the steps are numbered from 1"},
	{"at beyond the steps a link has", hostile(State{Spec: catalog.Default(), Page: Page{At: 4097}}), "at: step 4097 is outside [1, 4096]"},
	{"at beyond an int", fragment(hasAt, then(seeded(), 0, 0, 0, math.MaxUint64)), "at: 18446744073709551615 is too large"},
	{"long view", fragment(0, unchecked(State{Spec: catalog.Default(), Page: Page{View: strings.Repeat("a", 33)}})), "view: 33 bytes, more than 32"},

	{"logits without logits", fragment(0, unchecked(tokens(nil, nil, keep))), "logits: model=logits needs logits"},
	{"logits with a prompt", fragment(0, unchecked(tokens([]string{"a"}, []float64{1}, func(s *session.Spec) { s.Prompt = "a" }))), "prompt: model=logits has no prompt"},
	{"logits, two steps", fragment(0, unchecked(tokens([]string{"a"}, []float64{1}, func(s *session.Spec) { s.Steps = 2 }))), `steps: "2" is outside [0, 1]`},
	{"logit +Inf", fragment(0, unchecked(tokens([]string{"a", "b"}, []float64{1, math.Inf(1)}, keep))), "logits: token 1: +Inf is neither a finite number nor -inf"},
	{"logit beyond float64", fragment(0, twoE400()), "logits: token 0: +Inf is neither a finite number nor -inf"},
	{"every logit masked", fragment(0, unchecked(tokens([]string{"a", "b"}, []float64{math.Inf(-1), math.Inf(-1)}, keep))), "logits: every logit is -inf, so no token can be chosen"},
	{"empty token", fragment(0, unchecked(tokens([]string{"a", ""}, []float64{1, 2}, keep))), "vocab: token 1 is empty"},
	{"token, invalid UTF-8", fragment(0, unchecked(tokens([]string{"\xff"}, []float64{1}, keep))), `vocab: token 0, "\xff", is not valid UTF-8`},
	{"token with a space", fragment(0, unchecked(tokens([]string{"a b"}, []float64{1}, keep))), `vocab: token 0, "a b", contains white space`},
	{"tokens twice", fragment(0, unchecked(tokens([]string{"a", "a"}, []float64{1, 2}, keep))), `vocab: tokens 0 and 1 are both "a"`},
	{"forced token beyond the vocabulary", fragment(0, unchecked(tokens(six, make([]float64, 6), func(s *session.Spec) {
		s.Forced = []session.Force{{Step: 0, Token: 6}}
	}))), "forced token 0: token 6 is outside the vocabulary of 6"},
	{"edit beyond the vocabulary", fragment(0, unchecked(tokens(six, make([]float64, 6), func(s *session.Spec) {
		s.Edits = []session.Edit{{Step: 0, Token: 9}}
	}))), "edit 0: token 9 is outside the vocabulary of 6"},
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range decodeErrors {
		s, err := Decode(c.fragment)
		if err == nil || !strings.HasPrefix(err.Error(), "share link: ") || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: Decode = %+v, %v, want an error with %q", c.name, s, err, c.err)
		}
	}
}

// llamaSpec is the default session in llama.cpp mode, at temperature 1.
func llamaSpec() session.Spec {
	spec := catalog.Default()
	spec.Sampler.Mode, spec.Sampler.Temperature = sampler.LlamaCpp, 1
	return spec
}

// TestDecodeCut cuts a share link's data at every byte: each is an error.
func TestDecodeCut(t *testing.T) {
	state := tokens(six, []float64{-2.1, 0.3, 3.1, 0.8, 0.1, math.Inf(-1)}, func(s *session.Spec) {
		s.Steps, s.Sampler.Temperature, s.Sampler.TopP = 1, 0.8, 0.9
		s.Edits = []session.Edit{{Step: 0, Token: 2, Logit: 1.5}}
		s.Forced = []session.Force{{Step: 0, Token: 3}}
		s.Changes = []session.Change{{Step: 1, Sampler: sampler.Settings{Mode: sampler.RunC, Temperature: 2, Seed: 5}},
			{Step: 2, Sampler: sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 5, LlamaSettings: sampler.LlamaSettings{Sequence: "dkt", Mirostat: 2, MirostatTau: 5, MirostatEta: 0.1, DryMultiplier: 0.8, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: 64}}}}
	})
	state.Page = Page{At: 1, Records: []Record{{Tag: 1, Body: "\x02hf\x02kt\x01"}, {Tag: 2}}}
	var data writer
	flags := data.state(state)
	if _, err := Decode(fragment(flags, data)); err != nil || flags != hasChanges|hasAt|hasExtras|changesSession {
		t.Fatalf("flags %#x: %v", flags, err)
	}
	for n := range len(data) {
		if s, err := Decode(fragment(flags, data[:n])); err == nil {
			t.Errorf("%d of %d bytes: %+v", n, len(data), s)
		}
	}
}

// TestPageRecords decodes the page's records, below sessionTags: they
// are the page's, whatever they hold, and Decode returns them as they
// are. (An unknown tag from sessionTags on is refused: decodeErrors.)
func TestPageRecords(t *testing.T) {
	page := func(records ...Record) State { return State{Spec: catalog.Default(), Page: Page{Records: records}} }
	for _, c := range []struct {
		name     string
		fragment string
		want     State
	}{
		{"alone", withExtras(record{2, writer("a newer field")}), page(Record{2, "a newer field"})},
		{"empty", withExtras(record{sessionTags - 1, nil}), page(Record{Tag: sessionTags - 1})},
		{"three", withExtras(pageRecord, record{2, writer{0, 1}}, record{9, nil}), page(Record{1, string(pageRecord.body)}, Record{2, "\x00\x01"}, Record{Tag: 9})},
		{"beside a session record", withExtrasOf(llamaSpec(), hasExtras|changesSession, record{3, writer{7}}, record{tagLlama, llamaEntries(1, mirostat2(0)...)}),
			State{Spec: func() session.Spec {
				s := llamaSpec()
				s.Sampler.Mirostat, s.Sampler.MirostatTau, s.Sampler.MirostatEta = 2, 5, 0.1
				return s
			}(), Page: Page{Records: []Record{{3, "\x07"}}}}},
		{"no records", withExtras(), State{Spec: catalog.Default()}},
	} {
		got, err := Decode(c.fragment)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Decode = %+v, %v, want %+v", c.name, got, err, c.want)
		}
	}
}

// TestDecodeMemory checks that hostile links cost little memory: the
// output buffer and the decompressor's window, not what they claim.
func TestDecodeMemory(t *testing.T) {
	const most = 2 * MaxDecoded
	for _, c := range decodeErrors {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _ = Decode(c.fragment)
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > most {
			t.Errorf("%s: %d bytes allocated, more than %d", c.name, n, most)
		}
	}
}
