// Package engine is nexttoken's language-model engine: it reads a model,
// runs its forward pass, samples the next token and records every number
// a person may want to look at. This package holds no code; its
// subpackages do, in layers.
//
// # Layers
//
// A package imports packages of its own layer and of the layers below it,
// never one of a layer above, and nothing of the programs and the site
// built on the engine (cmd/, wasm/, web/): the imports point one way, from
// links and sessions down to the kernels. What only the engine uses lives
// under internal/. The rule concerns what a package is built from, for
// every platform (natively and js/wasm); its tests may import anything.
// TestLayers reads the table below, the one statement of the layers, and
// checks it against go list: it fails on an import that goes up, on an
// import of cmd/, wasm/ or web/, and on a package missing from the table.
//
//	1 kernels
//	  internal/expf                           glibc's expf, logf, log2f and powf, bit for bit
//	  internal/matvec                         float32 matrix-vector products and attention's sums natively: AVX2, Go twins
//	  internal/sincosf                        glibc's sinf and cosf, bit for bit (run.c's RoPE)
//	  internal/wasmsimd                       the WebAssembly SIMD kernels and their loader, on threads too
//	  internal/wasmsimd/gen                   writes the SIMD kernels' modules
//	  internal/workers                        a fixed pool of goroutines that a loop's rows are split among
//	  quant                                   ggml's weight formats and their matrix-vector kernels
//	  wasmshare                               a WebAssembly module and Go's loader on a shared memory
//	2 numbers, text and files
//	  regularfile                             opens a reader's file only if it is a regular one, never blocking
//	  softmax                                 softmax with every intermediate value; Top, Rank, Widen
//	  checkpoint                              llama2.c checkpoints: the weights and their shape
//	  tokenizer                               text to token ids and back: SentencePiece, GPT-2, words
//	  conversation                            a chat's messages and their rules
//	  chat                                    a model's chat template rendered as llama.cpp renders it
//	  chatprompt                              the tokenizer reading a chat template's prompt
//	3 model
//	  transformer                             the forward pass and the KV cache
//	  toymodel                                the worked example's toy model
//	  randmodel                               random checkpoints of any shape, for measurements
//	4 decoding
//	  sampler                                 the sampler chain and run.c's sampler; the settings' rules
//	  sampler/hf                              Hugging Face generate()'s logits processors
//	  sampler/llamacpp                        llama.cpp's sampler chain, bit for bit
//	  sampler/compare                         the four chains side by side on the same logits
//	5 session
//	  session                                 a decoding session as a value (Spec) and its trace
//	  tracefile                               a session's trace as a file: trace --json's schema, and a CSV of its steps
//	6 model files and the catalog
//	  gguf                                    GGUF files: llama models and their vocabularies
//	  modelfile                               a model from a reader's files or a URL, and its reference
//	  catalog                                 the built-in models and the session each opens with
//	7 links
//	  link                                    sessions in URLs: query links and share links
//	8 reference cases
//	  sampler/llamacpp/internal/refcases      the cases and sessions compared with llama.cpp itself
//	  sampler/llamacpp/internal/refcases/gen  writes them for the C++ harness
package engine
