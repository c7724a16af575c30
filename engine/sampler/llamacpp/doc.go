// Package llamacpp reproduces llama.cpp's sampler chain on given logits,
// stage by stage and bit for bit, so that a display can show why
// llama.cpp picked a token (for instance that its default chain applies
// min-p before the temperature).
//
// It follows llama.cpp at commit 34af94cd9ab277632e27caeec2d41de2fd091b31
// (2026-08-17): the stages of src/llama-sampler.cpp, the chain and its
// defaults as common/sampling.cpp (common_sampler_init) and common/common.h
// (common_params_sampling) build them. New(p) makes the chain of
// p.Samplers in their order, then dist, the final draw; Sample runs it on
// one vector of logits and records the candidate array after every stage
// in llama.cpp's own order. Implemented: penalties (repeat, frequency,
// presence over the last penalty_last_n tokens), DRY (with the
// vocabulary's pieces, Params.Vocab, for its sequence breakers; see
// dry.go), top-n-sigma, top-k, typical, top-p, min-p, XTC, temperature
// with dynamic temperature (temp-ext) and dist. A temperature ≤ 0 is greedy as in llama.cpp: the
// temperature stage leaves only the first maximum logit finite, and dist
// then draws it. With Params.Mirostat 1 or 2 the chain is instead, as
// common_sampler_init makes it, temp (plain, llama_sampler_init_temp) and
// mirostat (llama_sampler_mirostat_apply, m = 100) or mirostat v2
// (llama_sampler_mirostat_v2_apply), which draws with
// std::discrete_distribution from its own generator and carries its mu
// from token to token. Not implemented, refused by Validate: adaptive-p,
// infill, grammars and logit biases.
//
// # Bit for bit
//
// Everything is computed in float32 in llama.cpp's order of operations,
// with double where llama.cpp uses double (dist's sums, temp-ext's exp,
// top-n-sigma's squares, DRY's pow). Three libraries decide the last bits and the
// order of ties, and are reproduced:
//
//   - glibc 2.36's expf, logf, log2f and powf as glibc runs them on an
//     x86-64 CPU with FMA (its __expf_fma etc.): package expf's Exp, Log,
//     Log2 and Pow. On a CPU without FMA glibc rounds a few results
//     otherwise, and llama.cpp with it.
//   - libstdc++'s (GCC 12) std::sort and std::partial_sort, which are not
//     stable: which of two equal logits comes first, top-k keeps, or the
//     draw meets first is theirs; and llama.cpp's bucket sort for arrays
//     over 128 tokens, including x86's conversion of −Inf and huge logits
//     to bucket 0.
//   - libstdc++'s std::mt19937, generate_canonical and
//     discrete_distribution: dist draws one double from two 32-bit
//     outputs, XTC one float from one, mirostat one double through
//     discrete_distribution (none from one candidate), each from its own
//     generator seeded with Params.Seed.
//
// glibc's double exp (temp-ext) is left to math.Exp: the two differ in the
// last bit of a double in about one result in eight, but rounded to
// float32 as llama.cpp stores them they agreed on 10⁷ random inputs.
// Likewise DRY's pow(base, n) for a whole n is correctly rounded here
// (powInt), glibc's in all but about one double in 1,200; as DRY's float32
// penalty they agreed on 10⁷ random inputs.
//
// TestMatchesLlamaCpp compares every stage's array (ids in order, logits
// and probabilities to the bit) and every chosen token with llama.cpp's
// own sampler code on the cases of package internal/refcases; see
// testdata/README.md.
package llamacpp
