//go:build glibccheck

package llamacpp

/*
#cgo LDFLAGS: -lm
#include <math.h>
#include <stdint.h>
static void expf_range(uint32_t b0, int n, int step, float *out) { for (int i = 0; i < n; i++) { union { uint32_t u; float f; } v; v.u = b0 + (uint32_t)i*step; out[i] = expf(v.f); } }
static void logf_range(uint32_t b0, int n, float *out) { for (int i = 0; i < n; i++) { union { uint32_t u; float f; } v; v.u = b0 + (uint32_t)i; out[i] = logf(v.f); } }
static void log2f_range(uint32_t b0, int n, float *out) { for (int i = 0; i < n; i++) { union { uint32_t u; float f; } v; v.u = b0 + (uint32_t)i; out[i] = log2f(v.f); } }
static void powf_pairs(const float *x, const float *y, int n, float *out) { for (int i = 0; i < n; i++) out[i] = powf(x[i], y[i]); }
static double exp_d(double x) { return exp(x); }
static double pow_d(double x, double y) { return pow(x, y); }
*/
import "C"

import "unsafe"

func cExpfRange(b0 uint32, out []float32) {
	C.expf_range(C.uint32_t(b0), C.int(len(out)), 1, (*C.float)(unsafe.Pointer(&out[0])))
}
func cLogfRange(b0 uint32, out []float32) {
	C.logf_range(C.uint32_t(b0), C.int(len(out)), (*C.float)(unsafe.Pointer(&out[0])))
}
func cLog2fRange(b0 uint32, out []float32) {
	C.log2f_range(C.uint32_t(b0), C.int(len(out)), (*C.float)(unsafe.Pointer(&out[0])))
}
func cPowf(x, y, out []float32) {
	C.powf_pairs((*C.float)(unsafe.Pointer(&x[0])), (*C.float)(unsafe.Pointer(&y[0])), C.int(len(x)), (*C.float)(unsafe.Pointer(&out[0])))
}
func cExp(x float64) float64    { return float64(C.exp_d(C.double(x))) }
func cPow(x, y float64) float64 { return float64(C.pow_d(C.double(x), C.double(y))) }
