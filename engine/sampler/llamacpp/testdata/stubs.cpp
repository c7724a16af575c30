// stubs.cpp defines, as aborts, the functions of libllama that
// src/llama-sampler.cpp refers to for the grammar, infill and model-bound
// samplers, none of which the harness builds, so that the harness links
// against llama-sampler.cpp alone instead of the whole library and its
// model code. The vocabulary functions that DRY calls serve the case's
// synthetic vocabulary, g_pieces, as refcases.Pieces does: a token's text
// is its piece, and tokenize is greedy, the longest piece at each place
// (the lowest id among equals), skipping a byte that starts none.

#include "llama-grammar.h"
#include "llama-vocab.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern std::vector<std::string> g_pieces;

[[noreturn]] static void stub(const char * name) {
    std::fprintf(stderr, "harness: %s is not linked in\n", name);
    std::abort();
}

struct llama_vocab::impl {};
llama_vocab::llama_vocab() {}
llama_vocab::~llama_vocab() {}
bool llama_vocab::is_eog(llama_token) const { stub("llama_vocab::is_eog"); }
uint32_t llama_vocab::n_tokens() const { return (uint32_t) g_pieces.size(); }
llama_token llama_vocab::token_eos() const { stub("llama_vocab::token_eos"); }
llama_token llama_vocab::token_eot() const { stub("llama_vocab::token_eot"); }
int32_t llama_vocab::token_to_piece(llama_token, char *, int32_t, int32_t, bool) const { stub("llama_vocab::token_to_piece"); }

std::vector<llama_token> llama_vocab::tokenize(const std::string & text, bool, bool) const {
    std::vector<llama_token> ids;
    for (size_t at = 0; at < text.size();) {
        int best = -1;
        for (size_t id = 0; id < g_pieces.size(); id++) {
            const std::string & p = g_pieces[id];
            if (!p.empty() && text.compare(at, p.size(), p) == 0 && (best < 0 || p.size() > g_pieces[best].size())) best = (int) id;
        }
        if (best < 0) {
            at++;
            continue;
        }
        ids.push_back(best);
        at += g_pieces[best].size();
    }
    return ids;
}

std::string llama_vocab::detokenize(const std::vector<llama_token> & tokens, bool) const {
    std::string text;
    for (llama_token t : tokens) text += g_pieces.at(t);
    return text;
}


void llama_grammar_accept_impl(llama_grammar &, llama_token) { stub("llama_grammar_accept_impl"); }
void llama_grammar_apply_impl(const llama_grammar &, llama_token_data_array *) { stub("llama_grammar_apply_impl"); }
llama_grammar * llama_grammar_clone_impl(const llama_grammar &) { stub("llama_grammar_clone_impl"); }
void llama_grammar_free_impl(llama_grammar *) { stub("llama_grammar_free_impl"); }
llama_grammar * llama_grammar_init_impl(const llama_vocab *, const char *, const char *, bool, const char **, size_t, const llama_token *, size_t) { stub("llama_grammar_init_impl"); }

extern "C" {
float * llama_get_logits_ith(llama_context *, int32_t) { stub("llama_get_logits_ith"); }
const llama_model * llama_get_model(const llama_context *) { stub("llama_get_model"); }
llama_token * llama_get_sampled_candidates_ith(llama_context *, int32_t) { stub("llama_get_sampled_candidates_ith"); }
uint32_t llama_get_sampled_logits_count_ith(llama_context *, int32_t) { stub("llama_get_sampled_logits_count_ith"); }
float * llama_get_sampled_logits_ith(llama_context *, int32_t) { stub("llama_get_sampled_logits_ith"); }
uint32_t llama_get_sampled_probs_count_ith(llama_context *, int32_t) { stub("llama_get_sampled_probs_count_ith"); }
float * llama_get_sampled_probs_ith(llama_context *, int32_t) { stub("llama_get_sampled_probs_ith"); }
llama_token llama_get_sampled_token_ith(llama_context *, int32_t) { stub("llama_get_sampled_token_ith"); }
const llama_vocab * llama_model_get_vocab(const llama_model *) { stub("llama_model_get_vocab"); }
int32_t llama_vocab_n_tokens(const llama_vocab *) { stub("llama_vocab_n_tokens"); }
}
