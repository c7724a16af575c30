// harness runs llama.cpp's sampler chain on the cases that
// engine/sampler/llamacpp/internal/refcases/gen writes (standard input)
// and prints, for every step of every case, the candidate array after each
// sampler (standard output). The chain is built as common_sampler_init
// (common/sampling.cpp) builds it with mirostat 0 and no grammar or logit
// bias: the samplers of the letter sequence, then dist(seed). Output:
//
//   case NAME
//   stage NAME SIZE SORTED IDS_FNV VALS_FNV [ID...]   (one per sampler, then dist)
//   chosen ID INDEX
//
// IDS_FNV is FNV-1a 64 over the ids in array order (4 bytes each, little
// endian); VALS_FNV over id, logit bits and p bits of each candidate in
// array order. The ids are listed when there are at most 64.

#include "llama.h"

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

static void expect(std::istream & in, const char * word) {
    std::string w;
    in >> w;
    if (w != word) {
        std::fprintf(stderr, "expected %s, got %s\n", word, w.c_str());
        std::exit(1);
    }
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string w;
    while (std::cin >> w) {
        if (w != "case") {
            std::fprintf(stderr, "expected case, got %s\n", w.c_str());
            return 1;
        }
        std::string name, seq;
        std::cin >> name;
        expect(std::cin, "seq");
        std::cin >> seq;
        expect(std::cin, "ints");
        uint32_t seed;
        int32_t min_keep, top_k, last_n, steps;
        std::cin >> seed >> min_keep >> top_k >> last_n >> steps;
        expect(std::cin, "floats");
        float f[12];
        for (float & x : f) {
            std::string h;
            std::cin >> h;
            x = f32(h);
        }
        const float top_p = f[0], min_p = f[1], xtc_p = f[2], xtc_t = f[3], typ_p = f[4], temp = f[5],
                    dyn_range = f[6], dyn_exp = f[7], repeat = f[8], freq = f[9], present = f[10], top_n_sigma = f[11];
        size_t n;
        expect(std::cin, "history");
        std::cin >> n;
        std::vector<llama_token> history(n);
        for (auto & t : history) std::cin >> t;
        expect(std::cin, "logits");
        std::cin >> n;
        std::vector<float> logits(n);
        for (auto & l : logits) {
            std::string h;
            std::cin >> h;
            l = f32(h);
        }

        // common_sampler_init's switch, for the letters of
        // common_sampler_type_to_chr.
        std::vector<llama_sampler *> chain;
        for (char c : seq) {
            switch (c) {
                case 'e': chain.push_back(llama_sampler_init_penalties((int32_t) n, last_n, repeat, freq, present)); break;
                case 'd': chain.push_back(llama_sampler_init_dry(nullptr, 0.0f, 1.75f, 2, 64, nullptr, 0)); break;
                case 's': chain.push_back(llama_sampler_init_top_n_sigma(top_n_sigma)); break;
                case 'k': chain.push_back(llama_sampler_init_top_k(top_k)); break;
                case 'y': chain.push_back(llama_sampler_init_typical(typ_p, min_keep)); break;
                case 'p': chain.push_back(llama_sampler_init_top_p(top_p, min_keep)); break;
                case 'm': chain.push_back(llama_sampler_init_min_p(min_p, min_keep)); break;
                case 'x': chain.push_back(llama_sampler_init_xtc(xtc_p, xtc_t, min_keep, seed)); break;
                case 't': chain.push_back(llama_sampler_init_temp_ext(temp, dyn_range, dyn_exp)); break;
                default: std::fprintf(stderr, "unknown sampler %c\n", c); return 1;
            }
        }
        chain.push_back(llama_sampler_init_dist(seed));

        for (llama_token t : history) {
            for (auto * s : chain) llama_sampler_accept(s, t);
        }
        std::printf("case %s\n", name.c_str());
        std::vector<llama_token_data> cur(n);
        for (int step = 0; step < steps; step++) {
            for (size_t i = 0; i < n; i++) cur[i] = llama_token_data{(llama_token) i, logits[i], 0.0f};
            llama_token_data_array cur_p = {cur.data(), cur.size(), -1, false};
            // llama_sampler_chain_apply applies each in turn.
            for (auto * s : chain) {
                llama_sampler_apply(s, &cur_p);
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
            const llama_token id = cur_p.data[cur_p.selected].id;
            std::printf("chosen %d %" PRId64 "\n", id, cur_p.selected);
            // common_sampler_accept: every sampler of the chain sees the token.
            for (auto * s : chain) llama_sampler_accept(s, id);
        }
        for (auto * s : chain) llama_sampler_free(s);
    }
    return 0;
}
