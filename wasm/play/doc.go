// Package play is the playground's controller: the session on display and
// every rule of the page's interaction, with no user interface of its own.
// The views (package ui) draw a Snapshot and call the Controller's
// methods, the user's actions; the session runs behind an Engine, in the
// page (Local) or elsewhere, and the controller never assumes it answers
// at once.
//
// # The rules
//
// Steps. The step on display is a step taken or the next one. Step takes
// the next step and shows the next one after it; Run takes its number of
// steps one batch an animation frame and shows the newest as it goes;
// Stop, or the session ending, stops it. ← and → move the step on display
// through the history; → on the next step takes it. Home and End go to the
// first and the next step. Choosing a step to look at is not an action:
// Undo does not take it back, but a link carries it.
//
// Settings. A setting applies from the next step on and stays the user's
// current setting — the next step's — across edits, forces and switches
// of branch: forcing a token or editing a logit at a step taken starts a
// branch there that goes on with the current settings, and the page says
// so when the branch's own settings differed. The steps taken keep the
// settings they were taken with; Rerun takes them all again with the
// current ones. A value out of a setting's range is refused by its field,
// and the setting keeps its last good value.
//
// Undo. Every action on the session is one entry for Undo and Redo: a
// step, a run, a force, an edit, a setting, a rerun, a reset, a switch, a
// new prompt or model. A gesture is one action however many changes it
// makes: a slider held (BeginGesture … EndGesture), and typing in the
// prompt, from the first keystroke to Enter or the field losing the focus
// — the session follows the prompt when the typing pauses, and one Undo
// gives back the old prompt and every step it had. Undo and Redo restore
// the step on display with the session. A new action clears Redo.
//
// Chats. A model that has a chat template (Model.Chat) opens as a chat
// (OpenModel): the prompt becomes a user's one message, which the
// template renders into the prompt (session.Spec.Chat). Making a session
// a chat or a prompt again (UseChat), setting, adding or removing a
// message and switching the generation prompt are each one action, which
// opens the session afresh from the new prompt with the current settings,
// as a new prompt does; one that cannot run is refused by the chat's box
// (FieldChat). A chat made a prompt keeps the text of its last message
// that has one.
//
// Tour. The guided tour (Tour) is a list of stops, each a session, a
// step on display and the cards it is about. Going to a stop (GoTour)
// opens its session, one action Undo takes back, and shows its step;
// acting on the session keeps the page on the stop, whose words read the
// step on display. Leaving the tour (EndTour) keeps the session.
//
// Errors. An action that fails leaves the session as it was and says why
// in words by the field it came from (FieldError), or at the top of the
// page; the message goes at the next action.
//
// Links. The share link (ShareLink) carries the session, the step on
// display when it is not the next one, the embed's view and the compare
// card; opening it (OpenAddress) gives back exactly that state. The
// address bar follows it a moment after the last change. A link that
// cannot be read whole opens what can be read, and the notice says in
// words what was left out; a step on display past the session's last
// shows its last. A link with an embed parameter is an embed: if its
// embed, view or theme cannot be read, it shows why (Page.EmbedError)
// and no view.
//
// The engine. One request is out at a time; actions that come meanwhile
// wait in order, a slider's newer value replacing an older one still
// waiting. The detail of the step on display is asked for after every
// change that needs it, and the page draws again when it comes. The
// engine is the page's own (Local), or one elsewhere (Remote) that a
// Server answers with a Local of its own over a Port; the controller
// cannot tell them apart. Over the wire each answer carries only what
// changed: the steps added since the last (or how many of them were
// taken back), the next step, the text's new tail, and a model once.
//
// # The page's part of a link
//
// Package link reads the session and carries the page's part of a link
// without reading it (link.Page); its meaning is this package's. The
// page's query parameters, which link.PageParams hands over as given
// (names in any case, each once), override what a share link says:
//
//	embed        1: the page is inside another page, one view and no header;
//	             0, the default, the whole page
//	theme        one of Themes; absent or empty, auto
//	view         one of Views, the view an embed shows; absent or empty, all
//	at           the step on display, numbered as the page labels it
//	             ("Step N"): a whole number from 1; absent, the next step
//	compare      the compare card's two chains, A,B: each chain, runc,
//	             llama.cpp, mirostat, mirostat2, hf (in any case) or
//	             llama.cpp letters such as kt, as compare.Preset reads
//	             them; the card opens
//	compare_own  1: llama.cpp and Hugging Face keep their own defaults
//	             rather than follow the session's settings; 0, the default,
//	             follows them. Alone, the card opens on its default chains
//	tour         the guided tour's stop, a whole number from 1 (Tour). With
//	             no session in the link, the stop's session opens at the
//	             stop's step; beside one, the page is on the stop with the
//	             link's session
//	present      1: presentation mode, for teaching: larger type, the
//	             chosen cards only, a tour stop's words as a caption; 0,
//	             the default, the whole page
//	cards        the cards presentation mode shows, ids of Cards separated
//	             by commas (in any case); absent or empty, the tour stop's
//	             on the tour, every card off it. Without present=1 it is
//	             left out
//
// A share link carries the view in link.Page.View, the step on display
// in link.Page.At, and the compare card, while it is open, as the page's
// record of tag 1: chain A and chain B (strings, both "" for the card's
// default pair) and own defaults (a uint, 0 or 1), written as a share
// link writes its own fields (a uint an unsigned varint, a string its
// length as a uint, then its bytes), with nothing after them; the tour's
// stop, while the page is on the tour, as the record of tag 2: the stop's
// number, a uint. A record of another tag is a newer page's, which this
// page skips. The share link of a tour's stop as the stop opened it, its
// session and its step on display, is the stop's number alone (?tour=N).
// A share link in presentation mode carries present and cards in its
// query, as a link gives them.
package play
