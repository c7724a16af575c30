// llama-decode: llama.cpp's decode timed as llama-bench's generation
// test times it: one token a llama_decode, from token 1, greedy.
// Prints wall and CPU tok/s over the decode passes only, and the tokens.
//
// Its declarations are the few of llama.h it needs; the parameter structs
// are taken as opaque blocks from llama.cpp's own defaults.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct { _Alignas(16) unsigned char b[4096]; } params; // larger than either struct
typedef struct {
	int32_t n_tokens;
	int32_t *token;
	float *embd;
	int32_t *pos;
	int32_t *n_seq_id;
	int32_t **seq_id;
	int8_t *logits;
} llama_batch;

void llama_backend_init(void);
void ggml_backend_load_all_from_path(const char *dir);
params llama_model_default_params(void);
params llama_context_default_params(void);
void *llama_model_load_from_file(const char *path, params p);
void *llama_init_from_model(void *model, params p);
void llama_set_n_threads(void *ctx, int32_t n, int32_t n_batch);
llama_batch llama_batch_get_one(int32_t *tokens, int32_t n);
int32_t llama_decode(void *ctx, llama_batch b);
void llama_synchronize(void *ctx);
float *llama_get_logits_ith(void *ctx, int32_t i);
const void *llama_model_get_vocab(const void *model);
int32_t llama_vocab_n_tokens(const void *vocab);
void llama_log_set(void *cb, void *user);

static void quiet(int level, const char *text, void *user) { (void)level; (void)text; (void)user; }

static double seconds(clockid_t c) {
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	if (argc != 5) {
		fprintf(stderr, "usage: llama-decode BACKENDS_DIR MODEL.gguf TOKENS THREADS\n");
		return 2;
	}
	int n = atoi(argv[3]), threads = atoi(argv[4]);
	if (!getenv("LLAMA_DECODE_VERBOSE")) llama_log_set(quiet, NULL);
	ggml_backend_load_all_from_path(argv[1]);
	llama_backend_init();
	void *model = llama_model_load_from_file(argv[2], llama_model_default_params());
	if (!model) { fprintf(stderr, "%s: cannot load\n", argv[2]); return 1; }
	void *ctx = llama_init_from_model(model, llama_context_default_params());
	if (!ctx) { fprintf(stderr, "cannot make a context\n"); return 1; }
	llama_set_n_threads(ctx, threads, threads);
	int32_t vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

	// A warm-up pass, as llama-bench's, then a fresh context for the timed ones.
	int32_t tok = 1;
	if (llama_decode(ctx, llama_batch_get_one(&tok, 1))) { fprintf(stderr, "decode failed\n"); return 1; }
	llama_synchronize(ctx);
	void *timed = llama_init_from_model(model, llama_context_default_params());
	if (!timed) { fprintf(stderr, "cannot make a context\n"); return 1; }
	llama_set_n_threads(timed, threads, threads);

	int32_t *tokens = malloc(sizeof *tokens * n);
	double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
	tok = 1;
	for (int i = 0; i < n; i++) {
		if (llama_decode(timed, llama_batch_get_one(&tok, 1))) { fprintf(stderr, "decode failed at %d\n", i); return 1; }
		const float *logits = llama_get_logits_ith(timed, -1);
		int32_t best = 0;
		for (int32_t v = 1; v < vocab; v++) if (logits[v] > logits[best]) best = v;
		tokens[i] = tok = best;
	}
	wall = seconds(CLOCK_MONOTONIC) - wall;
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	printf("tok/s %.2f cpu-tok/s %.2f\ntokens", n / wall, n / cpu);
	for (int i = 0; i < n; i++) printf(" %d", tokens[i]);
	printf("\n");
	return 0;
}
