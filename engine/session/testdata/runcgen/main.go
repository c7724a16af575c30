// Command runcgen regenerates ../runc.json: the token ids that llama2.c's
// run.c samples for the cases below, and a hash of the logits of every
// position, which TestRunCCompatible replays. It builds run.c from the
// llama2.c source given (a checkout outside this project), patched only to
// print each prompt id and each sampled id to stderr and to write the logits
// of every forward pass to a file, with gcc -O3, and runs it on the embedded
// stories260K and on a random checkpoint of stories15M's shape (randmodel,
// seed 15, written to a temporary directory):
//
//	go run ./engine/session/testdata/runcgen LLAMA2C_DIR > engine/session/testdata/runc.json
//
// It also records a hash of every rotation run.c's RoPE computes, with
// glibc's powf, cosf and sinf, for every even head size up to 128 and every
// position below 4096 (ropeSource), which TestRunCRoPE recomputes.
//
// Run it on x86-64 Linux with glibc ≥ 2.28 on a CPU with FMA and AVX2: the
// engine reproduces the expf, sinf, cosf and powf of the build glibc runs
// there (packages expf and sincosf).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"nexttoken/engine/randmodel"
)

// A run of run.c: its model and its flags beyond the model and tokenizer.
type runCase struct {
	Model       string // stories260K or stories15M-shape
	Temperature float64
	TopP        float64
	Seed        uint64
	Steps       int // -n: positions, prompt included
	Prompt      string
}

// The random checkpoint, as TestRunCCompatible builds it.
const (
	random15M = "stories15M-shape"
	seed15M   = 15
)

var cases = []runCase{
	{"stories260K", 0, 0, 42, 64, "Once upon a time"},
	{"stories260K", 1.0, 0.9, 42, 128, "Once upon a time"},
	{"stories260K", 0.8, 0, 7, 128, "Lily"},
	{"stories260K", 1.0, 0.9, 1234, 256, ""},
	{"stories260K", 0, 0, 42, 512, ""},
	// The context's last position: run.c samples one more token from it.
	{"stories260K", 0.6, 0.9, 10, 512, "Lily"},
	// A hot run that samples EOS (id 2) and goes on: run.c stops on BOS only.
	{"stories260K", 50, 0, 1, 512, "Once"},
	// Random weights give flat distributions, where a logit's last bit often
	// decides the draw: the whole context, sampled.
	{random15M, 0.9, 0.9, 42, 256, "Once upon a time"},
	{random15M, 1.0, 0.9, 7, 256, ""},
}

// The patch: after encoding the prompt, print its ids; after sampling,
// print the id; at the end of every forward pass, append the logits to the
// file $RUNC_LOGITS as raw float32 values.
var patches = [][2]string{
	{"float* forward(Transformer* transformer, int token, int pos) {",
		"static FILE* logits_file;\nfloat* forward(Transformer* transformer, int token, int pos) {"},
	{"matmul(s->logits, x, w->wcls, p->dim, p->vocab_size);",
		"matmul(s->logits, x, w->wcls, p->dim, p->vocab_size);\n    if (logits_file) fwrite(s->logits, sizeof(float), p->vocab_size, logits_file);"},
	{"int main(int argc, char *argv[]) {",
		"int main(int argc, char *argv[]) {\n    if (getenv(\"RUNC_LOGITS\")) logits_file = fopen(getenv(\"RUNC_LOGITS\"), \"wb\");"},
	{"encode(tokenizer, prompt, 1, 0, prompt_tokens, &num_prompt_tokens);",
		"encode(tokenizer, prompt, 1, 0, prompt_tokens, &num_prompt_tokens);\n    for (int i = 0; i < num_prompt_tokens; i++) fprintf(stderr, \"P %d\\n\", prompt_tokens[i]);"},
	{"next = sample(sampler, logits);", "next = sample(sampler, logits); fprintf(stderr, \"S %d\\n\", next);"},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: runcgen LLAMA2C_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "runcgen:", err)
		os.Exit(1)
	}
}

type jsonCase struct {
	Model       string  `json:"model"`
	Command     string  `json:"command"`
	Prompt      string  `json:"prompt"`
	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p"`
	Seed        uint64  `json:"seed"`
	PromptIDs   []int   `json:"prompt_ids"`
	Generated   []int   `json:"generated"`
	// FNV-1a (32 bits) of the little-endian float32 logits of each
	// position's forward pass, in hex, space-separated.
	Logits string `json:"logits_fnv32"`
}

func run(dir string) error {
	src, err := os.ReadFile(filepath.Join(dir, "run.c"))
	if err != nil {
		return err
	}
	for _, p := range patches {
		if !bytes.Contains(src, []byte(p[0])) {
			return fmt.Errorf("run.c has no %q to patch", p[0])
		}
		src = bytes.Replace(src, []byte(p[0]), []byte(p[1]), 1)
	}
	tmp, err := os.MkdirTemp("", "runcgen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "run.c"), src, 0o644); err != nil {
		return err
	}
	bin := filepath.Join(tmp, "run")
	if out, err := exec.Command("gcc", "-O3", "-o", bin, filepath.Join(tmp, "run.c"), "-lm").CombinedOutput(); err != nil {
		return fmt.Errorf("gcc: %v\n%s", err, out)
	}
	models, err := filepath.Abs("web/models")
	if err != nil {
		return err
	}
	if err := randmodel.Write(tmp, randmodel.Stories15M, seed15M); err != nil {
		return err
	}
	files := map[string][2]string{
		"stories260K": {filepath.Join(models, "stories260K.bin"), filepath.Join(models, "tok512.bin")},
		random15M:     {filepath.Join(tmp, randmodel.ModelFile), filepath.Join(tmp, randmodel.TokenizerFile)},
	}
	logitsFile := filepath.Join(tmp, "logits")
	rope, err := ropeHash(tmp)
	if err != nil {
		return err
	}
	out := struct {
		About string     `json:"about"`
		RoPE  string     `json:"rope_fnv32"`
		Cases []jsonCase `json:"cases"`
	}{RoPE: rope, About: "Token ids printed by llama2.c's run.c (built with gcc -O3 from the source given to runcgen, patched only to print each prompt id and each sampled id to stderr and to write each forward pass's logits to a file) for web/models/stories260K.bin with tok512.bin and for randmodel's stories15M-shape checkpoint of seed 15 with its tokenizer; regenerate with go run ./engine/session/testdata/runcgen LLAMA2C_DIR (on x86-64 with FMA: see runcgen). run.c's -n counts positions, prompt included; 'generated' lists every sampled id in order, and run.c stops after sampling BOS (id 1). The seed of greedy runs is irrelevant (no draw). 'logits_fnv32' hashes the logits of each forward pass, position 0 first: FNV-1a, 32 bits, of the float32 values as little-endian bytes. 'rope_fnv32' hashes the same way every frequency, cosine and sine of run.c's RoPE (powf, cosf, sinf) for even head sizes up to 128 and positions below 4096, in runcgen's ropeSource order."}
	for _, c := range cases {
		f := files[c.Model]
		args := []string{f[0], "-z", f[1],
			"-t", strconv.FormatFloat(c.Temperature, 'f', -1, 64), "-p", strconv.FormatFloat(c.TopP, 'f', -1, 64),
			"-s", strconv.FormatUint(c.Seed, 10), "-n", strconv.Itoa(c.Steps), "-i", c.Prompt}
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		cmd.Env = append(os.Environ(), "RUNC_LOGITS="+logitsFile)
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %v\n%s", args, err, stderr.String())
		}
		logits, err := os.ReadFile(logitsFile)
		if err != nil {
			return err
		}
		jc := jsonCase{Model: c.Model, Command: "./run " + filepath.Base(f[0]) + " -z " + filepath.Base(f[1]) + " " + strings.Join(quoted(args[3:]), " "),
			Prompt: c.Prompt, Temperature: c.Temperature, TopP: c.TopP, Seed: c.Seed, PromptIDs: []int{}, Generated: []int{},
			Logits: hashes(logits, 4*vocab[c.Model])}
		for line := range strings.Lines(stderr.String()) {
			kind, id, ok := strings.Cut(strings.TrimSpace(line), " ")
			n, err := strconv.Atoi(id)
			if !ok || err != nil {
				continue // run.c's own messages, such as its speed
			}
			switch kind {
			case "P":
				jc.PromptIDs = append(jc.PromptIDs, n)
			case "S":
				jc.Generated = append(jc.Generated, n)
			}
		}
		out.Cases = append(out.Cases, jc)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// ropeSource prints the FNV-1a hash (32 bits) of the float32 values, as
// little-endian bytes, that run.c's RoPE loop computes: for each even head
// size hs ≤ 128 and head_dim = 0, 2, …, hs−2, the frequency, then for each
// position below 4096 the cosine and the sine of its angle.
const ropeSource = `#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static uint32_t h = 2166136261u;
static void add(float f) {
    unsigned char b[4]; memcpy(b, &f, 4);
    for (int i = 0; i < 4; i++) { h ^= b[i]; h *= 16777619u; }
}
int main(void) {
    for (int head_size = 2; head_size <= 128; head_size += 2)
        for (int head_dim = 0; head_dim < head_size; head_dim += 2) {
            float freq = 1.0f / powf(10000.0f, head_dim / (float)head_size);
            add(freq);
            for (int pos = 0; pos < 4096; pos++) {
                float val = pos * freq;
                add(cosf(val));
                add(sinf(val));
            }
        }
    printf("%08x\n", h);
    return 0;
}
`

// ropeHash builds and runs ropeSource in dir.
func ropeHash(dir string) (string, error) {
	src, bin := filepath.Join(dir, "rope.c"), filepath.Join(dir, "rope")
	if err := os.WriteFile(src, []byte(ropeSource), 0o644); err != nil {
		return "", err
	}
	if out, err := exec.Command("gcc", "-O3", "-o", bin, src, "-lm").CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	return strings.TrimSpace(string(out)), err
}

// vocab is each model's vocabulary size: the logits of one position.
var vocab = map[string]int{"stories260K": 512, random15M: randmodel.Stories15M.VocabSize}

// hashes is the FNV-1a hash of each row of n bytes of data, in hex.
func hashes(data []byte, n int) string {
	var out []string
	for ; len(data) >= n; data = data[n:] {
		h := fnv.New32a()
		h.Write(data[:n])
		out = append(out, fmt.Sprintf("%08x", h.Sum32()))
	}
	return strings.Join(out, " ")
}

// quoted writes args as a shell would need them.
func quoted(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " '") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return out
}
