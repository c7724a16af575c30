// Package hf reproduces the logits processors that Hugging Face
// transformers' generate() applies when it samples (do_sample=True,
// num_beams=1), rule for rule, in float32 as torch computes them on the
// CPU, so that its choices can be compared with this project's chain and
// with llama.cpp's.
//
// # Source
//
// The rules are read from transformers' main branch as stored by this
// project's source index (the whole repository, 1.3 GB, was too large to
// fetch), one file at a time:
//
//   - src/transformers/generation/logits_process.py at
//     aa5108b449965084a90a4c8ce130a156aebf28f1: the processors;
//   - src/transformers/generation/utils.py at
//     000034a44ef887621d9b36001a5eb7c46e64cb3f: _get_logits_processor
//     (which processors, in which order, under which conditions) and
//     _sample (the final softmax and torch.multinomial);
//   - src/transformers/generation/configuration_utils.py at
//     008f5c8c29be84d4721dc6d1e0fcd72300580be4: GenerationConfig's
//     defaults.
//
// The three commits are not one snapshot, and the files carry no version
// string; by their contents they are 4.5x-era main (after v4.49, whose
// behaviour one comment describes as past). A later main
// (logits_process.py at 00857b6c) differs in ways that change nothing for
// a Config: it adds TopHLogitsWarper after temperature (off unless top_h is
// set), gives RepetitionPenaltyLogitsProcessor a normalize option (off by
// default), and MinPLogitsWarper keeps its min_tokens_to_keep tokens by
// torch.topk of the probabilities instead of argsort of the scores (the
// same tokens but for ties, which this package orders by id anyway).
//
// # The chain
//
// Processors(c) returns, in _get_logits_processor's order, the processors
// a Config switches on: repetition penalty, then temperature, top-k,
// top-p, min-p, typical, epsilon and eta. Run applies them to the logits,
// recording the scores after each, and returns softmax of the last scores:
// the distribution generate() samples from. Removed tokens get the score
// −Inf (filter_value), so later processors and the softmax ignore them.
// Each processor's constructor documents its rule and the transformers
// class it follows.
//
// # Float32
//
// generate() casts the logits to float32 and every processor works on
// float32 tensors. This package does the same, operation by operation,
// with three exceptions it cannot reproduce:
//
//   - exp: torch uses SLEEF's vectorised expf (within 1 ulp); here eˣ is
//     rounded to float32 from float64.
//   - sums: torch adds float32 in 8 or 16 lanes, as the CPU's vector width
//     allows, then across the lanes; here sums are taken in float64 and
//     rounded once. (torch's cumsum is reproduced exactly: it accumulates in
//     double and rounds each prefix to float32.)
//   - the order of equal values in torch.sort, torch.argsort and torch.topk
//     (see Ties).
//
// So probabilities can differ from torch's by a few ulps, and a kept set
// can differ only where a cut falls within those ulps of a cumulative sum
// or a threshold. Everything else matches: division by the temperature and
// the penalty and multiplication by it, with the Python float rounded to
// float32 first as torch's CPU kernels do; thresholds compared in float32
// (1 − top_p computed in float64 and then rounded, as torch rounds a
// Python scalar to the tensor's type); softmax as max, exp, one reciprocal
// of the sum and a multiplication. On a GPU torch divides by a scalar by
// multiplying by its reciprocal, which can differ in the last bit; this
// package follows the CPU.
//
// # Ties
//
// torch.sort (stable=False, as HF calls it) does not specify the order of
// equal values; on the CPU it is std::sort's or x86-simd-sort's. This
// package orders tied tokens so that the lower id is kept: descending
// sorts put it first, top-p's ascending sort puts it last. The kept set
// depends on that choice only where tied tokens straddle a cut made by
// position rather than by value:
//
//   - never for top-k, epsilon and eta (the cut is a value, so all tied
//     tokens go together), nor for min-p and typical with
//     min_tokens_to_keep = 1, as generate() uses (see their constructors);
//   - for top-p when a tie straddles the cut — above all top_p = 0 with
//     the highest score tied, where HF keeps one of the tied tokens and
//     this package the lowest id;
//   - for min-p and typical with min_tokens_to_keep > 1 when tokens tie at
//     the min_tokens_to_keep-th position.
//
// # The draw
//
// generate() draws with torch.multinomial(probs, num_samples=1), which
// for one sample does not walk the cumulative distribution: it fills a
// tensor with Exp(1) variables qᵢ from torch's generator (a Mersenne
// Twister on the CPU, Philox on CUDA) and returns argmax pᵢ/qᵢ, which
// picks token i with probability pᵢ. That generator and its use of one number per token are
// not reproduced, so no seed here gives torch's tokens. Run returns the
// distribution instead; Draw picks from it by the cumulative distribution
// in token-id order with one uniform number from the caller's generator.
// Both draw each token with probability pᵢ, but not the same token for
// the same seed.
//
// # Compared with package sampler and llama.cpp
//
// The rules differ in three well-known places:
//
//   - Top-k with ties. Logits 3, 2, 2, 2, 1 and top_k = 2: HF removes the
//     tokens below the 2nd largest score, 2, and keeps {0, 1, 2, 3};
//     package sampler keeps exactly k tokens, ties by ascending id, {0, 1};
//     llama.cpp keeps exactly k, token 0 and whichever tied token its sort
//     puts second.
//   - top_p = 0. Logits 2, 1, 0: HF removes every token whose ascending
//     cumulative probability is ≤ 1 − 0 = 1, all of them, then keeps the
//     last min_tokens_to_keep = 1, so only token 0 remains (greedy);
//     llama.cpp likewise keeps one token; in package sampler 0 means off
//     and all three stay.
//   - Min-p and temperature. Min-p keeps pᵢ ≥ m · p_max, and pᵢ/p_max =
//     e^((ℓᵢ − ℓ_max)/T) depends on T. Logits 2, 0, min_p = 0.2, T = 2: HF
//     and package sampler apply temperature first, so the ratio is e⁻¹ ≈
//     0.37 and both tokens stay; llama.cpp's default chain (penalties, DRY,
//     top-n-σ, top-k, typical, top-p, min-p, XTC, temperature) applies
//     min-p at T = 1, where the ratio is e⁻² ≈ 0.14, so token 1 goes.
//
// The repetition penalty is the same rule in HF and package sampler, over
// the whole context; llama.cpp's penalises only the last penalty_last_n
// tokens. Top-p keeps, in exact arithmetic, the same
// tokens in HF and package sampler for 0 < p < 1 (the shortest prefix of
// the ranking whose probability reaches p); they can differ in the last
// bit of a sum at a boundary.
package hf
