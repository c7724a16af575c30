// harness.c runs llama.cpp (libllama, libggml) on GGUF files for package
// gguf's reference test; see README.md for how to build and run it.
//
//   harness quantize IN OUT FTYPE [pure]   llama_model_quantize, one thread
//                                          (FTYPE: llama_ftype's number)
//   harness dequant FILE                   per tensor: name, type and the
//                                          FNV-1a 64 hash of its bytes and
//                                          of ggml's to_float of them
//   harness logits FILE OUT TOKEN…         feeds the tokens one at a time
//                                          and writes each position's logits
//                                          (float32, little-endian) to OUT
//   harness dump FILE OUT NAMES TOKEN…     as logits, and writes the tensors
//                                          llama.cpp computes (its graph's eval
//                                          callback) whose names, less their
//                                          "-LAYER", are in NAMES (a,b,…), but
//                                          not views of them, to OUT: per tensor
//                                          a line "NAME OP NE0 NE1 NE2 NE3 POS",
//                                          then its values in index order,
//                                          float32 little-endian
//   harness bench FILE N                   greedy decode of N tokens from
//                                          BOS, one thread; prints tok/s over
//                                          the wall time and over the
//                                          process's CPU time (a shared
//                                          machine takes the CPU away), three
//                                          times, then the tokens it chose
//   harness greedy FILE OUT N TOKEN…       feeds the tokens one at a time,
//                                          then N greedy tokens, each the
//                                          first largest logit; writes the
//                                          logits each was chosen from
//                                          (float32, little-endian) to OUT
//                                          and prints the N tokens
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"
#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *data) {
    (void)data;
    if (level >= GGML_LOG_LEVEL_WARN) fputs(text, stderr);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static int dequant(const char *path) {
    struct ggml_context *meta = NULL;
    struct gguf_init_params params = {.no_alloc = true, .ctx = &meta};
    struct gguf_context *g = gguf_init_from_file(path, params);
    FILE *f = fopen(path, "rb");
    if (!g || !f) { fprintf(stderr, "cannot read %s\n", path); return 1; }
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const char *name = gguf_get_tensor_name(g, i);
        struct ggml_tensor *t = ggml_get_tensor(meta, name);
        size_t size = gguf_get_tensor_size(g, i);
        int64_t n = ggml_nelements(t);
        uint8_t *data = malloc(size);
        float *y = malloc(sizeof(float) * n);
        fseek(f, (long)(gguf_get_data_offset(g) + gguf_get_tensor_offset(g, i)), SEEK_SET);
        if (fread(data, 1, size, f) != size) { fprintf(stderr, "short read of %s\n", name); return 1; }
        const struct ggml_type_traits *tt = ggml_get_type_traits(t->type);
        if (t->type == GGML_TYPE_F32) memcpy(y, data, size);
        else tt->to_float(data, y, n);
        printf("%s %s %016llx %016llx\n", name, tt->type_name,
               (unsigned long long)fnv(0xcbf29ce484222325ull, data, size),
               (unsigned long long)fnv(0xcbf29ce484222325ull, y, sizeof(float) * n));
        free(data);
        free(y);
    }
    fclose(f);
    return 0;
}

static struct llama_context *load(const char *path, struct llama_model **model,
                                  ggml_backend_sched_eval_callback cb, void *cb_data) {
    struct llama_model_params mp = llama_model_default_params();
    mp.use_extra_bufts = getenv("REPACK") != NULL; // see README.md
    *model = llama_model_load_from_file(path, mp);
    if (!*model) { fprintf(stderr, "cannot load %s\n", path); exit(1); }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 0;              // the model's context length
    cp.n_threads = cp.n_threads_batch = 1;
    cp.type_k = cp.type_v = GGML_TYPE_F32; // not F16: only the matrix products should differ
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.cb_eval = cb;
    cp.cb_eval_user_data = cb_data;
    struct llama_context *ctx = llama_init_from_model(*model, cp);
    if (!ctx) { fprintf(stderr, "cannot make a context\n"); exit(1); }
    return ctx;
}

static int logits(const char *path, const char *out, int n, char **tokens) {
    struct llama_model *model;
    struct llama_context *ctx = load(path, &model, NULL, NULL);
    int vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    FILE *f = fopen(out, "wb");
    for (int i = 0; i < n; i++) {
        llama_token tok = atoi(tokens[i]);
        if (llama_decode(ctx, llama_batch_get_one(&tok, 1))) { fprintf(stderr, "decode failed\n"); return 1; }
        fwrite(llama_get_logits_ith(ctx, -1), sizeof(float), vocab, f);
    }
    fclose(f);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}

// dumping is what dump's eval callback needs: the file, the position being
// fed and the names asked for.
struct dumping {
    FILE *f;
    int pos;
    const char *names; // ",a,b,…,"
};

// wanted reports whether d asks for t: its name less a "-LAYER" suffix is in
// d->names, and it computes values (a reshape, view, permutation or
// transposition only lays out another tensor's).
static bool wanted(const struct dumping *d, const struct ggml_tensor *t) {
    if (t->type != GGML_TYPE_F32 || t->op == GGML_OP_RESHAPE || t->op == GGML_OP_VIEW ||
        t->op == GGML_OP_PERMUTE || t->op == GGML_OP_TRANSPOSE) return false;
    char key[GGML_MAX_NAME + 2] = ",";
    strncat(key, t->name, GGML_MAX_NAME);
    char *dash = strrchr(key, '-');
    if (dash && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1)) *dash = 0;
    strcat(key, ",");
    return strstr(d->names, key) != NULL;
}

// dumped is dump's eval callback: it asks for the tensors d wants and writes
// each as it is computed, whatever its strides, in index order.
static bool dumped(struct ggml_tensor *t, bool ask, void *data) {
    struct dumping *d = data;
    if (ask || !wanted(d, t)) return ask ? wanted(d, t) : true;
    size_t bytes = ggml_nbytes(t);
    uint8_t *raw = malloc(bytes);
    ggml_backend_tensor_get(t, raw, 0, bytes);
    fprintf(d->f, "%s %s %lld %lld %lld %lld %d\n", t->name, ggml_op_desc(t),
            (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3], d->pos);
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
            for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
                for (int64_t i0 = 0; i0 < t->ne[0]; i0++)
                    fwrite(raw + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3], 4, 1, d->f);
    free(raw);
    return true;
}

static int dump(const char *path, const char *out, const char *names, int n, char **tokens) {
    char *list = malloc(strlen(names) + 3);
    sprintf(list, ",%s,", names);
    struct dumping d = {fopen(out, "wb"), 0, list};
    struct llama_model *model;
    struct llama_context *ctx = load(path, &model, dumped, &d);
    for (; d.pos < n; d.pos++) {
        llama_token tok = atoi(tokens[d.pos]);
        if (llama_decode(ctx, llama_batch_get_one(&tok, 1))) { fprintf(stderr, "decode failed\n"); return 1; }
    }
    fclose(d.f);
    free(list);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}

static int bench(const char *path, int n) {
    struct llama_model *model;
    struct llama_context *ctx = load(path, &model, NULL, NULL);
    int vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    llama_token *chosen = malloc(n * sizeof *chosen);
    for (int run = 0; run < 3; run++) {
        llama_memory_clear(llama_get_memory(ctx), true);
        struct timespec a, b, ca, cb;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
        llama_token tok = 1;
        for (int i = 0; i < n; i++) {
            if (llama_decode(ctx, llama_batch_get_one(&tok, 1))) { fprintf(stderr, "decode failed\n"); return 1; }
            const float *l = llama_get_logits_ith(ctx, -1);
            int best = 0;
            for (int j = 1; j < vocab; j++) if (l[j] > l[best]) best = j;
            tok = best;
            chosen[i] = tok;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
        double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
        double cpu = (cb.tv_sec - ca.tv_sec) + (cb.tv_nsec - ca.tv_nsec) / 1e9;
        printf("%s: %d tokens in %.3f s, %.1f tok/s; %.3f s of CPU, %.1f cpu-tok/s\n", path, n, s, n / s, cpu, n / cpu);
    }
    printf("%s: greedy tokens [", path);
    for (int i = 0; i < n; i++) printf(i ? " %d" : "%d", chosen[i]);
    printf("]\n");
    free(chosen);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}

static int greedy(const char *path, const char *out, int n, int prompt, char **tokens) {
    struct llama_model *model;
    struct llama_context *ctx = load(path, &model, NULL, NULL);
    int vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    FILE *f = fopen(out, "wb");
    llama_token tok = atoi(tokens[0]);
    for (int i = 1; i < prompt + n; i++) {
        if (llama_decode(ctx, llama_batch_get_one(&tok, 1))) { fprintf(stderr, "decode failed\n"); return 1; }
        if (i < prompt) { tok = atoi(tokens[i]); continue; }
        const float *l = llama_get_logits_ith(ctx, -1);
        fwrite(l, sizeof(float), vocab, f);
        tok = 0;
        for (int j = 1; j < vocab; j++) if (l[j] > l[tok]) tok = j;
        printf(i > prompt ? " %d" : "%d", tok);
    }
    printf("\n");
    fclose(f);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}

int main(int argc, char **argv) {
    llama_log_set(quiet, NULL);
    llama_backend_init();
    if (argc >= 5 && !strcmp(argv[1], "quantize")) {
        struct llama_model_quantize_params p = llama_model_quantize_default_params();
        p.nthread = 1;
        p.ftype = (enum llama_ftype)atoi(argv[4]);
        p.pure = argc > 5 && !strcmp(argv[5], "pure");
        return llama_model_quantize(argv[2], argv[3], &p) != 0;
    }
    if (argc == 3 && !strcmp(argv[1], "dequant")) return dequant(argv[2]);
    if (argc >= 4 && !strcmp(argv[1], "logits")) return logits(argv[2], argv[3], argc - 4, argv + 4);
    if (argc >= 5 && !strcmp(argv[1], "dump")) return dump(argv[2], argv[3], argv[4], argc - 5, argv + 5);
    if (argc == 4 && !strcmp(argv[1], "bench")) return bench(argv[2], atoi(argv[3]));
    if (argc >= 6 && !strcmp(argv[1], "greedy")) return greedy(argv[2], argv[3], atoi(argv[4]), argc - 5, argv + 5);
    fprintf(stderr, "usage: harness quantize IN OUT FTYPE [pure] | dequant FILE | logits FILE OUT TOKEN... | dump FILE OUT NAMES TOKEN... | bench FILE N | greedy FILE OUT N TOKEN...\n");
    return 2;
}
