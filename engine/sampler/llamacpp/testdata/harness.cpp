// harness runs llama.cpp's sampler chain on the cases that
// engine/sampler/llamacpp/internal/refcases/gen writes (standard input)
// and prints, for every step of every case, the candidate array after each
// sampler (standard output). The chain is built as common_sampler_init
// (common/sampling.cpp) builds it with no grammar or logit bias: the
// samplers of the letter sequence, then dist(seed); with mirostat 1 or 2,
// temp(temp) then mirostat(n_vocab, seed, tau, eta, 100) or
// mirostat_v2(seed, tau, eta). DRY (d) reads its breakers through the
// case's own vocabulary, which stubs.cpp's llama_vocab serves from
// g_pieces. Output:
//
//   case NAME
//   stage NAME SIZE SORTED IDS_FNV VALS_FNV [ID...]   (one per sampler, then dist)
//   chosen ID INDEX
//
// It also runs the sessions that engine/session/testdata/llamacppgen
// writes: a "session" record has the same settings and history (the
// prompt) as a case, then one "step" line of logits per step; for each
// step it prints only "chosen ID INDEX", and accepts ID before the next.
//
// IDS_FNV is FNV-1a 64 over the ids in array order (4 bytes each, little
// endian); VALS_FNV over id, logit bits and p bits of each candidate in
// array order. The ids are listed when there are at most 64.

#include "llama.h"
#include "llama-vocab.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

static uint64_t fnv(uint64_t h, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static float f32(const std::string & hex) {
    uint32_t u = (uint32_t) std::stoul(hex, nullptr, 16);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// g_pieces is the vocabulary of the case or session being run, which
// stubs.cpp's llama_vocab reads.
std::vector<std::string> g_pieces;

// text reads "x" and the bytes in hex.
static std::string text(const std::string & field) {
    std::string t;
    for (size_t i = 1; i + 1 < field.size(); i += 2) t += (char) std::stoi(field.substr(i, 2), nullptr, 16);
    return t;
}

static std::vector<std::string> read_texts(std::istream & in) {
    size_t n;
    in >> n;
    std::vector<std::string> texts(n);
    for (auto & t : texts) {
        std::string f;
        in >> f;
        t = text(f);
    }
    return texts;
}

static void expect(std::istream & in, const char * word) {
    std::string w;
    in >> w;
    if (w != word) {
        std::fprintf(stderr, "expected %s, got %s\n", word, w.c_str());
        std::exit(1);
    }
}

// params are a chain's settings, as a case or session gives them.
struct params {
    std::string seq;
    uint32_t seed;
    int32_t min_keep, top_k, last_n, steps, mirostat, dry_allowed, dry_last_n;
    float f[12], tau, eta, dry_mult, dry_base;
    std::vector<std::string> breakers, pieces;
    std::vector<llama_token> history;
};

// read_params reads the lines from seq to history.
static params read_params(std::istream & in) {
    params p;
    expect(in, "seq");
    in >> p.seq;
    expect(in, "ints");
    in >> p.seed >> p.min_keep >> p.top_k >> p.last_n >> p.steps;
    expect(in, "floats");
    for (float & x : p.f) {
        std::string h;
        in >> h;
        x = f32(h);
    }
    std::string tau, eta;
    expect(in, "mirostat");
    in >> p.mirostat >> tau >> eta;
    p.tau = f32(tau);
    p.eta = f32(eta);
    std::string mult, base;
    expect(in, "dry");
    in >> mult >> base >> p.dry_allowed >> p.dry_last_n;
    p.dry_mult = f32(mult);
    p.dry_base = f32(base);
    expect(in, "breakers");
    p.breakers = read_texts(in);
    expect(in, "vocab");
    p.pieces = read_texts(in);
    size_t n;
    expect(in, "history");
    in >> n;
    p.history.resize(n);
    for (auto & t : p.history) in >> t;
    return p;
}

static std::vector<float> read_logits(std::istream & in) {
    size_t n;
    in >> n;
    std::vector<float> logits(n);
    for (auto & l : logits) {
        std::string h;
        in >> h;
        l = f32(h);
    }
    return logits;
}

// build_chain is common_sampler_init's switch, for the letters of
// common_sampler_type_to_chr, then dist(seed), or with mirostat its temp
// and mirostat; every sampler accepts the history.
static std::vector<llama_sampler *> build_chain(const params & p, int32_t n_vocab) {
    static llama_vocab vocab;
    g_pieces = p.pieces;
    std::vector<const char *> breakers;
    for (const auto & b : p.breakers) breakers.push_back(b.c_str());
    const float top_p = p.f[0], min_p = p.f[1], xtc_p = p.f[2], xtc_t = p.f[3], typ_p = p.f[4], temp = p.f[5],
                dyn_range = p.f[6], dyn_exp = p.f[7], repeat = p.f[8], freq = p.f[9], present = p.f[10], top_n_sigma = p.f[11];
    std::vector<llama_sampler *> chain;
    if (p.mirostat == 1 || p.mirostat == 2) {
        chain.push_back(llama_sampler_init_temp(temp));
        chain.push_back(p.mirostat == 1 ? llama_sampler_init_mirostat(n_vocab, p.seed, p.tau, p.eta, 100)
                                        : llama_sampler_init_mirostat_v2(p.seed, p.tau, p.eta));
    } else {
        for (char c : p.seq) {
            switch (c) {
                case 'e': chain.push_back(llama_sampler_init_penalties(n_vocab, p.last_n, repeat, freq, present)); break;
                case 'd': chain.push_back(llama_sampler_init_dry(&vocab, p.dry_mult, p.dry_base, p.dry_allowed, p.dry_last_n, breakers.data(), breakers.size())); break;
                case 's': chain.push_back(llama_sampler_init_top_n_sigma(top_n_sigma)); break;
                case 'k': chain.push_back(llama_sampler_init_top_k(p.top_k)); break;
                case 'y': chain.push_back(llama_sampler_init_typical(typ_p, p.min_keep)); break;
                case 'p': chain.push_back(llama_sampler_init_top_p(top_p, p.min_keep)); break;
                case 'm': chain.push_back(llama_sampler_init_min_p(min_p, p.min_keep)); break;
                case 'x': chain.push_back(llama_sampler_init_xtc(xtc_p, xtc_t, p.min_keep, p.seed)); break;
                case 't': chain.push_back(llama_sampler_init_temp_ext(temp, dyn_range, dyn_exp)); break;
                default: std::fprintf(stderr, "unknown sampler %c\n", c); std::exit(1);
            }
        }
        chain.push_back(llama_sampler_init_dist(p.seed));
    }
    for (llama_token t : p.history) {
        for (auto * s : chain) llama_sampler_accept(s, t);
    }
    return chain;
}

// apply runs the chain on logits, as llama_sampler_chain_apply, printing
// each stage's array when verbose, and returns the selected position.
static int64_t apply(std::vector<llama_sampler *> & chain, const std::vector<float> & logits,
                     std::vector<llama_token_data> & cur, bool verbose) {
    const size_t n = logits.size();
    cur.resize(n);
    for (size_t i = 0; i < n; i++) cur[i] = llama_token_data{(llama_token) i, logits[i], 0.0f};
    llama_token_data_array cur_p = {cur.data(), cur.size(), -1, false};
    for (auto * s : chain) {
        llama_sampler_apply(s, &cur_p);
        if (!verbose) continue;
        uint64_t hi = 0xcbf29ce484222325ULL, hv = hi;
        for (size_t i = 0; i < cur_p.size; i++) {
            uint32_t lb, pb;
            std::memcpy(&lb, &cur_p.data[i].logit, 4);
            std::memcpy(&pb, &cur_p.data[i].p, 4);
            hi = fnv(hi, (uint32_t) cur_p.data[i].id);
            hv = fnv(fnv(fnv(hv, (uint32_t) cur_p.data[i].id), lb), pb);
        }
        std::printf("stage %s %zu %d %016" PRIx64 " %016" PRIx64, llama_sampler_name(s), cur_p.size, cur_p.sorted ? 1 : 0, hi, hv);
        if (cur_p.size <= 64) {
            for (size_t i = 0; i < cur_p.size; i++) std::printf(" %d", cur_p.data[i].id);
        }
        std::printf("\n");
    }
    // cur_p.data may have moved (XTC advances it): the chosen id is read by the caller from here.
    cur.assign(cur_p.data, cur_p.data + cur_p.size);
    return cur_p.selected;
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string w;
    std::vector<llama_token_data> cur;
    while (std::cin >> w) {
        std::string name;
        std::cin >> name;
        if (w == "case") {
            params p = read_params(std::cin);
            expect(std::cin, "logits");
            std::vector<float> logits = read_logits(std::cin);
            std::vector<llama_sampler *> chain = build_chain(p, (int32_t) logits.size());
            std::printf("case %s\n", name.c_str());
            for (int step = 0; step < p.steps; step++) {
                const int64_t sel = apply(chain, logits, cur, true);
                const llama_token id = cur[sel].id;
                std::printf("chosen %d %" PRId64 "\n", id, sel);
                // common_sampler_accept: every sampler of the chain sees the token.
                for (auto * s : chain) llama_sampler_accept(s, id);
            }
            for (auto * s : chain) llama_sampler_free(s);
        } else if (w == "session") {
            // A session: each step has its own logits (the model's after
            // the tokens chosen so far, which the writer computed), and the
            // chosen token is accepted before the next step, as llama-cli
            // does; the history is the prompt, accepted first.
            params p = read_params(std::cin);
            std::vector<llama_sampler *> chain;
            std::printf("session %s\n", name.c_str());
            for (int step = 0; step < p.steps; step++) {
                expect(std::cin, "step");
                std::vector<float> logits = read_logits(std::cin);
                if (step == 0) chain = build_chain(p, (int32_t) logits.size());
                const int64_t sel = apply(chain, logits, cur, false);
                const llama_token id = cur[sel].id;
                std::printf("chosen %d %" PRId64 "\n", id, sel);
                for (auto * s : chain) llama_sampler_accept(s, id);
            }
            for (auto * s : chain) llama_sampler_free(s);
        } else {
            std::fprintf(stderr, "expected case or session, got %s\n", w.c_str());
            return 1;
        }
    }
    return 0;
}
