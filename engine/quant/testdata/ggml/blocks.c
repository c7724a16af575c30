// blocks.c writes random blocks of ggml's Q8_0, Q4_0, Q4_K, Q6_K, Q5_0, Q5_K, Q5_1, IQ4_NL, IQ4_XS, Q2_K and Q3_K formats
// with what ggml's dequantize_row_* functions make of them, and a random
// vector with what llama.cpp's CPU backend quantizes it to before a dot
// product with Q8_0 and Q4_0 or K-format weights (the from_float of Q8_0
// and Q8_K in ggml-cpu's type traits), for package quant's tests. See
// README.md for the build command.
//
// Files, in the current directory, all little-endian:
//   TYPE.blocks     the blocks, back to back
//   TYPE.f32        their dequantized values, float32
//   vec.f32               a random vector, float32
//   q8_0.vec, q8_K.vec    its block_q8_0 and block_q8_K quantizations
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-cpu.h"
#include "ggml-quants.h" // and, through it, ggml-common.h's blocks

// splitmix64: a fixed generator, so every build writes the same files.
static uint64_t state = 0x5eed;
static uint64_t next(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
// uniform in [-1, 1)
static float unit(void) { return (float)((next() >> 40) * (1.0 / (1ull << 23))) - 1.0f; }

// A random half: normal numbers of either sign across the exponents a
// scale takes, and now and then a subnormal or zero.
static uint16_t randhalf(void) {
    uint64_t r = next();
    uint16_t sign = (r & 1) << 15, mant = (r >> 1) & 0x3ff;
    switch ((r >> 11) % 8) {
    case 0: return sign | mant;                                // subnormal or zero
    default: return sign | (uint16_t)((1 + (r >> 14) % 20) << 10) | mant;  // 2^-14 … 2^5
    }
}

static void put(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) { perror(name); exit(1); }
}

// Half of the blocks are the quantization of random floats by ggml's own
// quantizer (quantize), the other half random bytes with random half
// scales written at the offsets scale_offsets lists.
static void blocks(const char *name, int qk, size_t bytes, int nblocks,
                   void (*quantize)(const float *, void *, int64_t),
                   void (*dequantize)(const void *, float *, int64_t),
                   const int *scale_offsets, int nscales) {
    uint8_t *b = malloc(bytes * nblocks);
    float *x = malloc(sizeof(float) * qk * nblocks);
    int half = nblocks / 2;
    for (int i = 0; i < qk * half; i++) x[i] = unit() * (1 + (i / qk) % 4);
    quantize(x, b, qk * half);
    for (size_t i = bytes * half; i < bytes * nblocks; i++) b[i] = (uint8_t)next();
    for (int i = half; i < nblocks; i++)
        for (int s = 0; s < nscales; s++) {
            uint16_t h = randhalf();
            memcpy(b + bytes * i + scale_offsets[s], &h, 2);
        }
    dequantize(b, x, qk * nblocks);
    char path[64];
    snprintf(path, sizeof path, "%s.blocks", name);
    put(path, b, bytes * nblocks);
    snprintf(path, sizeof path, "%s.f32", name);
    put(path, x, sizeof(float) * qk * nblocks);
    free(b);
    free(x);
}

// The signatures differ only in the block pointer's type.
#define Q(f) ((void (*)(const float *, void *, int64_t))(f))
#define D(f) ((void (*)(const void *, float *, int64_t))(f))

int main(void) {
    static const int q_0[] = {0};                              // d first
    static const int q4_K[] = {0, 2};                          // d, dmin
    static const int q6_K[] = {offsetof(block_q6_K, d)};       // d last
    blocks("q8_0", QK8_0, sizeof(block_q8_0), 64, Q(quantize_row_q8_0_ref), D(dequantize_row_q8_0), q_0, 1);
    blocks("q4_0", QK4_0, sizeof(block_q4_0), 64, Q(quantize_row_q4_0_ref), D(dequantize_row_q4_0), q_0, 1);
    blocks("q4_K", QK_K, sizeof(block_q4_K), 16, Q(quantize_row_q4_K_ref), D(dequantize_row_q4_K), q4_K, 2);
    blocks("q6_K", QK_K, sizeof(block_q6_K), 16, Q(quantize_row_q6_K_ref), D(dequantize_row_q6_K), q6_K, 1);

    // Vectors: values of mixed magnitudes, some blocks all zero, and
    // blocks of a few repeated values, as a dequantized Q4_0 row holds,
    // where x·127/max falls halfway between integers (±63.5 for ±4 in 8).
    enum { n = 8 * QK_K };
    static float x[n];
    for (int i = 0; i < n; i++) {
        int block = i / QK8_0;
        if (block % 11 == 3) x[i] = 0;
        else if (block % 5 == 1) x[i] = (float)((int)(next() % 255) - 127) / 2;
        else if (block % 3 == 2) x[i] = (i % 32 == 0 ? -8.0f : (float)((int)(next() % 16) - 8)) * 0.0123f;
        else x[i] = unit() * (float)(1 << (block % 7));
    }
    for (int i = 3 * QK_K; i < 4 * QK_K; i++) x[i] = 0; // a whole Q8_K block of zeros
    put("vec.f32", x, sizeof x);
    static block_q8_0 y0[n / QK8_0];
    static block_q8_K yk[n / QK_K];
    memset(yk, 0, sizeof yk); // a zero block's bsums are left as they were
    ggml_cpu_init();
    ggml_get_type_traits_cpu(GGML_TYPE_Q8_0)->from_float(x, y0, n);
    ggml_get_type_traits_cpu(GGML_TYPE_Q8_K)->from_float(x, yk, n);
    put("q8_0.vec", y0, sizeof y0);
    put("q8_K.vec", yk, sizeof yk);
    // Added later, last, so that the files before it keep their bytes.
    blocks("q5_0", QK5_0, sizeof(block_q5_0), 64, Q(quantize_row_q5_0_ref), D(dequantize_row_q5_0), q_0, 1);
    blocks("q5_K", QK_K, sizeof(block_q5_K), 16, Q(quantize_row_q5_K_ref), D(dequantize_row_q5_K), q4_K, 2);
    blocks("q5_1", QK5_1, sizeof(block_q5_1), 64, Q(quantize_row_q5_1_ref), D(dequantize_row_q5_1), q4_K, 2); // d, m
    blocks("iq4_nl", QK4_NL, sizeof(block_iq4_nl), 64, Q(quantize_row_iq4_nl_ref), D(dequantize_row_iq4_nl), q_0, 1);
    blocks("iq4_xs", QK_K, sizeof(block_iq4_xs), 16, Q(quantize_row_iq4_xs_ref), D(dequantize_row_iq4_xs), q_0, 1);
    static const int q2_K[] = {offsetof(block_q2_K, d), offsetof(block_q2_K, dmin)};
    static const int q3_K[] = {offsetof(block_q3_K, d)};
    blocks("q2_K", QK_K, sizeof(block_q2_K), 16, Q(quantize_row_q2_K_ref), D(dequantize_row_q2_K), q2_K, 2);
    blocks("q3_K", QK_K, sizeof(block_q3_K), 16, Q(quantize_row_q3_K_ref), D(dequantize_row_q3_K), q3_K, 1);
    return 0;
}
