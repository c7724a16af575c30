// Package sampler chooses the next token from a model's logits, recording
// what every stage of the choice did so that a display can show it.
//
// Sample runs in one of two modes. Two more modes of Settings, LlamaCpp
// and HF, name other runtimes' chains, which package compare runs for a
// session (Sample refuses them): Validate accepts them, and compare checks
// what those runtimes refuse.
//
// # Chain mode
//
// The default mode is a chain of stages, each optional, applied in this
// order to the logits ℓ (one per vocabulary token):
//
//  1. Repetition penalty r (CTRL, Keskar et al. 2019; the Hugging Face rule).
//     For every distinct token i in the history: ℓᵢ ← ℓᵢ / r if ℓᵢ > 0,
//     else ℓᵢ ← ℓᵢ · r. With r > 1 repeated tokens become less likely
//     whatever the sign of their logit; r < 1 favours them. Off when r is 0
//     or 1.
//
//  2. Temperature T. If T = 0 the choice is greedy: the token is the argmax
//     of the (penalised) logits, the lowest id on ties as in run.c; no later
//     stage runs and the generator is not used. If T > 0 the distribution is
//     p = softmax(ℓ / T), computed by package softmax.
//
//  3. Top-k (k > 0): keep the k most probable tokens.
//
//  4. Top-p, or nucleus (0 < p < 1): sort the tokens by probability and keep
//     the shortest prefix whose cumulative probability is ≥ p; the token that
//     reaches p is kept.
//
//  5. Min-p (m > 0): keep the tokens with pᵢ ≥ m · maxⱼ pⱼ.
//
// Every filter (3–5) sets the probabilities of the tokens it removes to 0 and
// divides the rest by their sum. Tokens whose probability is already 0 (masked
// by a −Inf logit, or removed earlier) are never candidates. Sorting is by
// descending probability, ties by ascending id, so every result is
// deterministic.
//
//  6. Draw. One uniform number u = float64(RNG.Float32()) ∈ [0, 1) is drawn,
//     the surviving tokens are put in the sorted order above, and the chosen
//     token is the first whose cumulative probability exceeds u (the last
//     one, if rounding leaves u beyond the total).
//
// # run.c mode
//
// Mode RunC reproduces sample() of Andrej Karpathy's llama2.c run.c
// exactly, in float32, so that the same logits, temperature, top-p and seed
// give the same tokens as run.c compiled with make run (gcc -O3; -Ofast may
// reorder float sums). Logits, T and p are rounded to float32 and:
//
//   - if T = 0: the first maximum logit (greedy);
//   - otherwise ℓᵢ / T, then run.c's float32 softmax (softmax.Float32),
//     then one coin = RNG.Float32(), then
//   - if p ≤ 0 or p ≥ 1: multinomial sampling in id order, the first i with
//     coin < p₀ + … + pᵢ (summed in float32), else the last token;
//   - otherwise top-p: a pre-filter keeps the tokens with pᵢ ≥ (1 − p)/(n − 1)
//     (the others cannot be in the nucleus, since together they weigh less
//     than 1 − p); these are sorted by descending probability and cut after
//     the first position where the float32 cumulative sum S exceeds p
//     (strictly, unlike the chain's ≥); the token is then drawn from the
//     kept ones with the target r = coin · S.
//
// The stages record run.c's float32 values, widened to float64: the
// temperature stage, the pre-filter as "runc_cutoff" and the nucleus as
// "top_p" (their Probs renormalised for display), and the draw with run.c's
// unnormalised float32 cumulative sums and target. Choice.Softmax is the
// float64 display softmax at the same temperature, as in chain mode.
//
// Two details depend on the C library. C's qsort does not specify the order
// of equal probabilities; this package breaks ties by ascending id, as
// glibc's qsort does (a stable merge sort whenever it can allocate its
// buffer); other C libraries, such as musl or macOS's, may differ. expf is
// package expf's, glibc's algorithm: on every float32 in [−104, 0], the
// inputs softmax gives it, it differs from glibc 2.36's expf on x86-64 in a
// single result, by one ulp.
//
// Where run.c has undefined behaviour, Sample returns an error: when the
// top-p pre-filter keeps no token (a one-token vocabulary, or p < 1/n on a
// nearly uniform distribution), and when a logit or ℓ/T overflows float32.
//
// run.c only calls sample() for generated tokens, not while it forces the
// prompt, so a session that wants run.c's tokens must draw only then too.
//
// # Settings
//
// Settings holds a mode and the numeric settings; Params lists the numeric
// ones with their names, labels and ranges — temperature 0 to 100, top-k
// a whole number 0 to 2^20, top-p and min-p 0 to 1, repetition penalty 0
// to 100, seed a whole number 1 to 2^53 − 1 — and is the one place those
// rules live: Validate, links, the command line and the playground all
// read them there. LlamaParams are the settings only llama.cpp mode has —
// mirostat with its tau and eta, DRY's multiplier, base, allowed length
// and last n — and Settings.Sequence its stages by letter; they are 0 in
// every other mode. Settings.IgnoreEOS, valid in every mode, is for the
// session that runs the sampler: it masks the tokens that end a text in
// the logits before the sampler reads them.
//
// # Random numbers
//
// RNG is run.c's xorshift64* generator. One Float32 is drawn per sampled
// (non-greedy) token in both modes. Its state is exported so that a session
// can save and restore it.
package sampler
