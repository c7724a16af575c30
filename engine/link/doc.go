// Package link reads and writes sessions in URLs, in the readable query form
// that documentation writers type by hand:
//
//	/?model=stories260K&prompt=Once+upon+a+time&steps=20&temperature=0.8&top_p=0.9
//	/?logits=-2.1,0.3,3.1,0.8,0.1,-0.5&vocab=The,cat,sat,on,the,mat&steps=1
//
// Parse turns such a query into a session.Spec; Merge turns it, with a
// share link's fragment, into a State, the session and the page's part of
// the link; Query turns a session back into a query. Parse and Merge
// refuse a link with one bad part; Open, the page's reader, keeps what
// reads and says in words what it left out. The form carries the
// model, the prompt or a chat's messages, the number of steps, the sampler
// settings and hand-typed logits; forced tokens, edited logits
// and changes of settings made along the way do not fit it, and Query
// reports when it drops them. A share link carries the whole State, those
// too, in the URL's fragment instead (see Share links below).
//
// # The session and the page
//
// A link carries a session, which link reads and checks, and the page's
// part (Page): the view it has open, the step on display and its records,
// which link carries without reading them. link knows where they go in a
// share link and checks only the bounds the format sets; what they mean,
// and the page's own query parameters, are the page's (the playground's
// are package play's, which reads them with PageParams). The step on
// display is a field of Page, not a record: it is a step of the session,
// so Merge and Open drop it with the session when the query names another
// model, and its place in the format is fixed (flag bit 2, between the
// changes and the extras).
//
// # Parameters
//
// These are the parameters link reads, in the order it reads them. An
// absent one keeps its value in catalog.Default, the session the
// playground opens with: model toy, prompt "The cat", 0 steps,
// sampler.DefaultSettings (greedy, seed 42).
//
//	model               a name of package catalog (logits, toy, stories260K),
//	                    or a model file's reference (modelfile.ParseRef)
//	logits              comma-separated logits: finite numbers, or -inf to mask a token
//	vocab               comma-separated tokens; the default is 0,1,2,…
//	prompt              UTF-8 text of at most MaxPrompt bytes; prompt= is the empty prompt
//	chat                a chat in place of the prompt (session.Spec.Chat): its messages as
//	                    a JSON list, [{"role":"user","content":"Hello"}], as the
//	                    command line's --messages file holds them; at most MaxMessages,
//	                    their texts at most MaxPrompt bytes together, each role as
//	                    conversation.CheckRole accepts it; a prompt given too is an error
//	generation_prompt   with chat: 1, the default, ends the prompt where the
//	                    assistant's reply starts (add_generation_prompt); 0 not
//	steps               a whole number in [0, 4096]
//	sampler             chain, runc, llama.cpp or hf, in any case; or one of
//	                    llama.cpp's other chains: mirostat, mirostat2
//	                    (llama.cpp mode with mirostat=1 or 2), or letters
//	                    such as edkt (llama.cpp mode with that sequence of
//	                    stages), as compare.SetChain reads them
//	temperature … seed  the settings of sampler.Params, by Name
//	mirostat … dry_penalty_last_n
//	                    the settings of sampler.LlamaParams, by Name, which
//	                    only llama.cpp mode reads
//	ignore_eos          1: step 0's settings ignore the end of text: the
//	                    tokens that end a text (EOS, BOS) are masked, as
//	                    llama.cpp's --ignore-eos (sampler.Settings.IgnoreEOS
//	                    of Spec.Sampler); 0, the default, not
//
// Names match in any case (Temperature= is temperature=), as do the values
// that are names (model=STORIES260k, sampler=RunC). Any other parameter is
// ignored: a shared address gathers parameters from elsewhere (utm_source=,
// fbclid=, ref=), and some belong to the page, not the session (the
// playground's embed=, theme=, view=, at=, compare=, compare_own=), which
// PageParams hands to the page as given.
//
// The ranges of the sampler's settings, whether each takes whole numbers
// and which values turn its stage off are sampler.Params' and
// sampler.LlamaParams', the one home of those rules, which link does not
// repeat; the error for a value outside one says it in words.
//
// A sampler= that names another runtime's chain (llama.cpp, mirostat,
// mirostat2, llama.cpp letters, hf) starts from that runtime's defaults
// for every setting the query does not give, as the command line's
// --sampler and the page's decoding select do (compare.ChainSettings, the
// one rule): ?sampler=llama.cpp is temperature 0.8, top_k 40, top_p 0.95,
// min_p 0.05, with mirostat and DRY off and their settings at llama.cpp's
// defaults (compare.StageDefaults); ?sampler=hf is temperature 1, top_k 50,
// top_p 1. The seed is never a runtime's: absent, it is the one the
// settings had; a share link's settings are what it holds.
// sampler=chain or runc keeps the settings it is read over but for what
// its mode cannot have. Mirostat or DRY switched on by the query takes
// llama.cpp's defaults for its settings that are 0 and not given
// (compare.StageDefaults); a share link's own stay as they are.
// Numbers are what strconv.ParseFloat reads, except that NaN, Inf and values
// beyond a float64 (1e999) are errors; whole numbers are decimal. A value
// outside its range (a hand-made link's: the playground writes none) fails
// with an error naming the parameter.
//
// A model named opens as package catalog opens it: model=stories260K alone
// is stories260K after its own prompt, "Once upon a time", and
// model=logits alone is the worked example, six words and their logits.
//
// model=logits is package session's model-less session. Its logits, at
// most 1024 and not all -inf, replace the worked example's, with the
// vocabulary 0, 1, 2, … unless vocab gives one of the same length, whose
// tokens are non-empty, distinct, valid UTF-8 and free of white space (the
// word tokenizer's rule). It has no prompt, and 0 or 1 steps. A query with
// logits but no model means model=logits; logits or vocab with another
// model, and a prompt with model=logits, are errors.
//
// The filters top_k, top_p and min_p act only when sampling: greedy
// decoding takes the most probable token, whatever they keep. So a reader
// who switches one on over greedy settings wants sampling, and gets it at
// temperature 1: ?top_p=0.9 is ?top_p=0.9&temperature=1. An explicit
// temperature=0 keeps greedy decoding, and Query writes it whenever a
// greedy session has a filter on.
//
// # Errors
//
// Each parameter may be given once, in any spelling of its name. Parse
// reads the parameters in the order of the list and reports the first
// problem as a *ParamError, which names the parameter so that the
// playground can point at it. A rule that ties two parameters together is
// checked at the later one: top_k=3 is wrong only after sampler=runc, as
// sampler.Settings.Validate says. What
// llama.cpp's and Hugging Face's own rules refuse (session.CheckSettings:
// a seed beyond 32 bits for llama.cpp, temperature 0 for Hugging Face,
// whose greedy decoding is do_sample=False) is checked once every
// parameter is read, and blamed on sampler.
//
// Parse does not load models. Whether the prompt's words are in a model's
// vocabulary, or fit its context, the session finds out when it runs.
//
// A value longer than 64 KiB is rejected before it is parsed, and a list is
// counted before it is split, so a hostile link fails fast.
//
// Parse takes the query decoded, as url.Values holds it. A query with a %
// that starts no escape, such as prompt=100%, is not valid in a URL, and
// url.ParseQuery drops the parameter with an error that does not name it;
// ParseQuery reads such a query and names the parameter in a *ParamError.
//
// # Share links
//
// A share link carries a State — the whole session, forced tokens, edited
// logits, changes of settings and the generation tree included, and the
// page's part: its open view, the step on display and its records — in
// the URL's fragment, which the browser never sends to a server. Encode
// writes the fragment and Decode reads it; the worked example with "mat" forced at step 0, open at the softmax view, is
//
//	/#s1.AAZsb2dpdHMAB3NvZnRtYXgBBWNoYWluAAAAAAAAAAIAKgYDVGhlA2NhdANzYXQCb24DdGhlA21hdCsBBgE-ARABAgELAQEABQA
//
// The fragment is "s1." (the format and its version; a later format gets
// another), then base64url (RFC 4648 §5, without padding) of a flags byte
// and the data. The flags are
//
//	bit 0  the data is raw DEFLATE (RFC 1951), which Encode uses only when it is shorter
//	bit 1  a changes section follows the edits; Encode sets it only when there are changes
//	bit 2  the step on display follows the changes; Encode sets it only when there is one
//	bit 3  the extras section follows last; Encode sets it only when it has a record
//	bit 4  the extras hold a record that changes the session (a tag of 32 or more)
//
// and the other bits are 0; Decode refuses a link with another bit set. A
// section's bit is clear when the section is empty, so that a link reads
// the same to every Decode that knows the sections it has. The data is
// these fields, in this order:
//
//	model, prompt, view  string; the view is Page.View
//	steps                uint
//	settings             the session's settings, those of step 0 (Spec.Sampler)
//	vocab and logits     uint n, then n strings, then n numbers
//	forced               uint n, then n × (step uint, token uint)
//	edits                uint n, then n × (step uint, token uint, logit number)
//	changes              with bit 1: uint n, then n × (step uint, settings)
//	at                   with bit 2: uint, Page.At
//	extras               with bit 3: uint n, then n × (tag uint, record string)
//
// where settings are the sampler's, as sampler.Params orders them:
//
//	sampler                           string: chain, runc, llama.cpp or hf
//	temperature                       number
//	top_k                             uint
//	top_p, min_p, repetition_penalty  number
//	seed                              uint
//
// The extras section is where new fields go without a new flag or
// version: each record is a tag and its fields written as one string,
// whose length lets a reader skip a tag it does not know. Tags are at
// least 1 and ascending, so each appears once; n is at most 64. A record
// of a tag from 1 to 31 is the page's, and carries only what the page
// shows: Decode returns them all in Page.Records, as they are, and the
// page skips one it does not know, so a newer link opens in an older
// playground without what that playground cannot show. Their tags and
// fields are the page's to define (the playground's, tag 1 the compare
// card, are package play's). A record of tag 32 or more changes the
// session: Decode refuses one it does not know, and bit 4 says that there
// is one, so that a reader that skips the tags it does not know refuses
// the link rather than open another session. A record of the session
// holds exactly its fields. Its tags are
//
//	32  llama.cpp's own settings (sampler.Settings' Sequence and
//	    sampler.LlamaParams) of the session's settings and of the changes
//	    that have any: uint n, then n × (uint k: 0 for the session's
//	    settings, k for change k − 1, ascending; sequence string;
//	    mirostat uint; mirostat_tau, mirostat_eta, dry_multiplier,
//	    dry_base numbers; dry_allowed_length, dry_penalty_last_n uints)
//	33  the generation tree (session.Spec.Branches): uint n, 1 to 256,
//	    then n × (from, at, steps uints; forced and edits as above; uint
//	    m, then m × (step uint, settings, then the change's llama.cpp
//	    settings as tag 32 writes them: sequence string, mirostat uint,
//	    four numbers, two uints)), each branch as session.CheckBranches
//	    accepts it, with at most 4096 steps
//	34  the settings that ignore the end of text
//	    (sampler.Settings.IgnoreEOS): uint n, then n × uint k, ascending,
//	    where 0 is the session's settings, 1 to m its changes (k for
//	    change k − 1 of its m), and the numbers after m the branches'
//	    changes, branch after branch in order; Encode writes it only
//	    when some settings ignore the end of text
//	35  the chat whose rendering by the model's template is the prompt
//	    (session.Spec.Chat; the prompt field is then empty): uint n, at
//	    most MaxMessages, then n × (role string, content string), then
//	    uint 1 if the prompt ends with the generation prompt, else 0;
//	    the query form's rules for chat= apply
//
// A uint is an unsigned varint (encoding/binary); a string is its length in
// bytes as a uint, then its bytes; a number is a uint u and a zig-zag
// varint e, meaning the float64 nearest to ±(u>>1)×10^e, negative when u is
// odd. Encode writes the fewest digits that read back exactly, so −2.1 is
// u = 43, e = −1: two bytes where its float64 bits take eight. −Inf is
// −1e999, which overflows to it.
//
// Decode applies the query form's rules where they apply, with the same
// messages: model=logits has 1 to 1024 tokens and no prompt, at most one
// step, and so on. A token may hold a comma, which the query form cannot
// carry. More rules bound what only a share link
// carries: the fragment is at most MaxFragment characters and its data at
// most MaxDecoded bytes once decompressed, with nothing after the last
// field; every count is checked against the bytes left before anything is
// allocated for it; a forced token or edit has a step in [0, 4096] and, in
// a logits session, a token of the vocabulary; an edited logit is a
// number or −Inf; a change has a step in [1, 4096] after the step of the
// change before it (session.CheckChanges) and settings that pass
// session.CheckSettings, so there are at most 4096 of them. Of the page's
// part it checks the bounds only: a view of at most 32 bytes, a step on
// display from 1 to 4096 (whether the session has it is the page's to
// find out once the session runs), record tags from 1 to 31. Encode and
// Decode errors start with "share link: ".
//
// # Invariants
//
// A share link, once written, opens the same session for as long as the
// format lasts: "s1." keeps its meaning, a new field goes in the extras
// under a new tag (or in a section behind a new flag bit), and a reader
// refuses what would change the session and it cannot read rather than
// open another one. Decode(Encode(s)) is s, its Spec in the form
// Canonical gives; Encode(Decode(f)) is f for a fragment Encode wrote.
// The links recorded in the tests (TestRecordedLinks and the page's
// TestRecordedPages) reopen byte for byte.
//
// # Query and fragment together
//
// Merge reads an address's query and fragment, such as
// /?temperature=0.5#s1.…, in which the fragment is the base and the query
// overrides it. Exactly:
//
//   - A fragment that does not start as a share link does — "s", a
//     version number, "." — is an anchor of the page (#intro), and Merge
//     ignores it. One that does start so but does not decode is an error.
//   - Without a share link, Merge reads the query as Parse does, over
//     catalog.Default.
//   - Otherwise it reads the query over the share link's State, with
//     Parse's rules, order and *ParamError: each parameter given replaces
//     its field. A query that names another model than the link's —
//     model=, or logits= without model= — starts that model's session as
//     Parse would, without the link's step on display. The sampler's
//     settings in the query are those of step 0 (Spec.Sampler), as in a
//     session without changes. What the query cannot name — forced tokens,
//     edits, changes of settings — stays the link's. The result must pass
//     Decode's checks, or Merge says "the query does not fit the share
//     link": logits=1,2,3 over six tokens needs vocab= too.
//   - The page's part is the share link's, and the page reads its own
//     parameters (PageParams) over it.
package link
