package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	return runInput("", args...)
}

// runInput runs a command line with input as its standard input.
func runInput(input string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(input), &out, &errb)
	return code, out.String(), errb.String()
}

const workedLogits = "--logits=-2.1,0.3,3.1,0.8,0.1,-0.5"
const workedVocab = "--vocab=The,cat,sat,on,the,mat"

// TestTraceWorkedExample checks the printed softmax steps against values
// computed here from the definition.
func TestTraceWorkedExample(t *testing.T) {
	code, out, errs := runCmd("trace", workedLogits, workedVocab)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	logits := []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}
	var sum float64
	for _, l := range logits {
		sum += math.Exp(l - 3.1)
	}
	want := []string{"Step 1", "Step 2", "Step 3", "max = 3.1", "sum = " + num(sum), "greedy: argmax p = sat"}
	for _, l := range logits {
		want = append(want, num(math.Exp(l-3.1)), num(math.Exp(l-3.1)/sum))
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestTraceModels(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--model=toy", "--prompt=The cat", "--steps=4"},
			[]string{"step 4 ", `text: "The cat sat on the mat"`, "KV cache 6 positions"}},
		{[]string{"--model=stories260K", "--prompt=Once upon a time", "--steps=64"},
			[]string{"step 64 ", "KV cache 69 positions, 88320 bytes", `text: "Once upon a time, there was a little girl named Lily.`}},
		{[]string{"--model=../../web/models/stories260K.bin", "--tokenizer=../../web/models/tok512.bin", "--prompt=Lily", "--steps=3",
			"--temperature=0.8", "--top-p=0.9", "--top-k=40", "--min-p=0.05", "--repetition-penalty=1.1", "--seed=9"},
			[]string{"step 3 ", "draw: u = ", "top_k removed"}},
		// Without --prompt, a model starts from its own prompt (package catalog).
		{[]string{"--model=stories260K", "--steps=1"}, []string{`prompt "Once upon a time": 5 tokens`}},
		{[]string{"--steps=1"}, []string{`prompt "The cat": 2 tokens`, `text: "The cat sat"`}},
		{[]string{"--model=stories260K", "--prompt=", "--steps=1"}, []string{`prompt "": 1 tokens`}},
		{[]string{"--model=stories260K", "--prompt=Lily", "--steps=2", "--sampler=runc", "--temperature=1", "--top-p=0.9"},
			[]string{"runc, temperature 1, top-p 0.9", "runc_cutoff removed"}},
		// The runtimes' chains drive the session, with their defaults for the flags not given.
		{[]string{"--model=stories260K", "--steps=2", "--sampler=llama.cpp", "--seed=42"},
			[]string{"sampler llama.cpp, temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, seed 42", "top-k removed 472 tokens", "draw: u = "}},
		{[]string{"--model=stories260K", "--steps=1", "--sampler=hf", "--repetition-penalty=1.2"},
			[]string{"sampler hf, temperature 1, top-k 50, repetition penalty 1.2, seed 42", "TopKLogitsWarper removed",
				"(torch.multinomial's generator cannot be reproduced: drawn with nexttoken's xorshift by the cumulative sum in token-id order)"}},
		// llama.cpp's mirostat and sequences of its letters, with its
		// defaults for a stage switched on.
		{[]string{"--model=stories260K", "--steps=2", "--sampler=mirostat2", "--seed=42"},
			[]string{"sampler mirostat2, temperature 0.8, mirostat tau 5, mirostat eta 0.1, seed 42", "mirostat-v2 removed"}},
		{[]string{"--model=stories260K", "--steps=2", "--sampler=llama.cpp", "--mirostat=1", "--mirostat-tau=3", "--temperature=1"},
			[]string{"sampler mirostat, temperature 1, mirostat tau 3, mirostat eta 0.1, seed 42", "mirostat removed"}},
		{[]string{"--model=stories260K", "--steps=2", "--chain=edkt", "--dry-multiplier=0.8", "--dry-allowed-length=3"},
			[]string{"sampler edkt, temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, DRY multiplier 0.8, DRY base 1.75, DRY allowed length 3, DRY last n 64, seed 42",
				"top-k removed"}},
		// Why a session stopped, in words.
		{[]string{"--model=stories260K", "--prompt=", "--steps=400"}, []string{"step 346 ", "stopped: the model chose <s>, which starts a new text"}},
		{[]string{"--steps=100"}, []string{"stopped: the context of 16 tokens is full"}},
		{[]string{"--model=stories260K", "--prompt=", "--steps=400", "--ignore-eos"}, []string{"step 400 "}},
		// Greedy hand-typed logits say so, rather than "temperature 1".
		{[]string{workedLogits, workedVocab, "--temperature=0"},
			[]string{"6 tokens, greedy (temperature 0)", "greedy: argmax p = sat"}},
		// At T ≠ 1 the shifted column is ℓ/T − max.
		{[]string{workedLogits, workedVocab, "--temperature=2"},
			[]string{"6 tokens, temperature 2", "ℓ/T − max", "e^-2.6 ="}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) { tracePrints(t, tc.args, tc.want) })
	}
}

// tracePrints runs trace with args, which must succeed and print every
// line of want.
func tracePrints(t *testing.T, args, want []string) {
	t.Helper()
	code, out, errs := runCmd(append([]string{"trace"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestTraceJSON(t *testing.T) {
	for _, vectors := range []bool{false, true} {
		args := []string{"trace", "--json", "--logits=-2.1,0.3,3.1,-inf,0.1,-0.5", workedVocab}
		if vectors {
			args = append(args, "--vectors")
		}
		code, out, errs := runCmd(args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var trace struct {
			Text  string
			Steps []map[string]json.RawMessage
		}
		if err := json.Unmarshal([]byte(out), &trace); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if len(trace.Steps) != 1 {
			t.Fatalf("%d steps, want 1", len(trace.Steps))
		}
		step := trace.Steps[0]
		for _, key := range []string{"pos", "input", "token", "piece", "prob", "top", "kv_len", "kv_bytes", "stages"} {
			if _, ok := step[key]; !ok {
				t.Errorf("step lacks %q", key)
			}
		}
		if string(step["token"]) != "2" || trace.Text != "sat" {
			t.Errorf("token %s text %q", step["token"], trace.Text)
		}
		var top []struct{ Token int }
		if err := json.Unmarshal(step["top"], &top); err != nil || len(top) != 5 || top[0].Token != 2 {
			t.Errorf("top %s (%v): want the 5 most probable, sat first", step["top"], err)
		}
		if _, ok := step["logits"]; ok != vectors {
			t.Errorf("--vectors=%v, but logits present = %v", vectors, ok)
		}
		if !vectors {
			continue
		}
		var logits bytes.Buffer
		if err := json.Compact(&logits, step["logits"]); err != nil || logits.String() != `[-2.1,0.3,3.1,"-Inf",0.1,-0.5]` {
			t.Errorf("logits %s (%v)", step["logits"], err)
		}
		var probs []float64
		if err := json.Unmarshal(step["probs"], &probs); err != nil || probs[3] != 0 {
			t.Errorf("probs %s (%v): a masked token has probability 0", step["probs"], err)
		}
	}
}

// TestTraceVectorsAreTheSteps: with --vectors, each step's vectors are
// its own, as Detail derives them for the step taken (a Detail lasts
// until the session changes, so not the next step's, read before it was
// taken: its hidden state is the model's latest pass).
func TestTraceVectorsAreTheSteps(t *testing.T) {
	const steps = 4
	code, out, errs := runCmd("trace", "--json", "--vectors", "--model=stories260K", "--prompt=Lily", "--temperature=1", "--seed=3", fmt.Sprintf("--steps=%d", steps))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var trace struct {
		Steps []struct{ Logits, Hidden, Probs []float64 }
	}
	if err := json.Unmarshal([]byte(out), &trace); err != nil || len(trace.Steps) != steps {
		t.Fatalf("%d steps, %v", len(trace.Steps), err)
	}
	s, err := session.New(session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampler.Settings{Temperature: 1, Seed: 3}, Steps: steps}, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range trace.Steps {
		d, err := s.Detail(i)
		if err != nil {
			t.Fatal(err)
		}
		hidden := make([]float64, len(d.Hidden))
		for k, v := range d.Hidden {
			hidden[k] = float64(v)
		}
		if !slices.Equal(st.Hidden, hidden) || !slices.Equal(st.Logits, d.Logits) || !slices.Equal(st.Probs, d.Choice.Softmax.Probs) {
			t.Errorf("step %d: the vectors printed are not the step's", i)
		}
	}
}

// TestTraceErrors checks that bad input gives one line on stderr and a
// non-zero exit.
func TestTraceErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "flag provided but not defined"},
		{[]string{"--logits=1,x"}, `value 2, "x", is not a number`},
		{[]string{"--logits=1,nan"}, "not a finite number"},
		{[]string{"--logits=1,1e999"}, "not a finite number"},
		{[]string{"--logits=1,+inf"}, "not a finite number"},
		{[]string{"--logits=1,2", "--vocab=a,b,c"}, "2 logits for 3 tokens"},
		{[]string{"--vocab=a,b"}, "--vocab needs --logits"},
		{[]string{"--model=/nonexistent.bin", "--tokenizer=x"}, "no such file"},
		{[]string{"--model=llama"}, `no model called "llama"`},
		{[]string{"--model=../../web/models/stories260K.bin"}, "a llama2.c checkpoint needs its tokenizer, --tokenizer=FILE"},
		{[]string{"--prompt=The dog"}, `unknown word "dog"`},
		{[]string{"--temperature=-1"}, `invalid value "-1" for flag -temperature: want a number from 0 to 100`},
		{[]string{"--temperature=NaN"}, `invalid value "NaN" for flag -temperature: want a number from 0 to 100`},
		{[]string{"--top-k=2.5"}, `invalid value "2.5" for flag -top-k: want a whole number from 0 to 1,048,576`},
		{[]string{"--top-p=x"}, `invalid value "x" for flag -top-p: want a number from 0 to 1`},
		{[]string{"--repetition-penalty=101"}, `invalid value "101" for flag -repetition-penalty: want a number from 0 to 100`},
		{[]string{"--seed=0"}, `invalid value "0" for flag -seed: want a whole number from 1 to 9,007,199,254,740,991`},
		{[]string{"--seed=-3"}, "invalid value"},
		{[]string{"--sampler=beam"}, "beam"},
		{[]string{"--sampler=runc", "--top-k=5", "--temperature=1"}, "run.c has no top-k"},
		{[]string{"--sampler=hf", "--temperature=0"}, "greedy decoding is do_sample=False, not temperature 0"},
		{[]string{"--sampler=llama.cpp", "--seed=4294967296"}, "seed 4294967296 does not fit llama.cpp's 32 bits"},
		{[]string{"--mirostat=2"}, "mirostat is llama.cpp's: it must be 0 in chain mode, not 2"},
		{[]string{"--sampler=hf", "--dry-multiplier=0.5"}, "dry_multiplier is llama.cpp's: it must be 0 in hf mode"},
		{[]string{"--sampler=edkq"}, `--sampler: chain "edkq" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf`},
		{[]string{"--sampler=llama.cpp", "--chain=hf"}, "--sampler and --chain are the same flag: give one"},
		{[]string{"--sampler=llama.cpp", "--dry-multiplier=1", "--dry-base=0.9"}, "dry_base: 0.9 is below 1"},
		{[]string{"--steps=-1"}, "negative"},
		{[]string{"--top=-1"}, "--top=-1"},
		{[]string{"--prompt-file=/nonexistent"}, "--prompt-file: stat /nonexistent"},
		{[]string{"--prompt-file=/dev/zero"}, "not a regular file"},
		{[]string{"--prompt-file=../../go.mod", "--prompt=x"}, "give one"},
		{[]string{"--top=1001"}, "--top=1001"},
		{[]string{"--vectors"}, "--vectors needs --json"},
		{[]string{"--recompute"}, "--recompute needs --json"},
		{[]string{"--lens"}, "--lens needs --json"},
		{[]string{workedLogits, "--json", "--recompute"}, "need a model, not --logits"},
		{[]string{workedLogits, "--json", "--lens"}, "need a model, not --logits"},
		{[]string{"--steps=x"}, "invalid value"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"--model=../../web/models/tok512.bin", "--tokenizer=../../web/models/tok512.bin"}, "checkpoint"},
		{[]string{"--model=../../web/models/stories260K.bin", "--tokenizer=../../web/models/toy-tokenizer.bin"}, "6 tokens"},
		{[]string{"--model=../../web/models/stories260K.bin", "--tokenizer=/dev/zero"}, "tokenizer /dev/zero: /dev/zero is a device, not a regular file"},
		{[]string{"--tokenizer=../../web/models/tok512.bin"}, "--tokenizer goes with a model file given to --model (a llama2.c checkpoint, or a GGUF file whose own tokenizer it replaces), not with the embedded model toy, which has its own"},
		{[]string{"--model=missing.bin", "--tokenizer=../../web/models/tok512.bin"}, "--model: stat missing.bin: no such file or directory"},
		{[]string{"--model=missing"}, `no model called "missing"`},
		{[]string{"--model=../../web/models/stories260K.bin", "--tokenizer=/nonexistent"}, "tokenizer /nonexistent: stat /nonexistent"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			failsInOneLine(t, append([]string{"trace"}, tc.args...), tc.want)
		})
	}
}

// failsInOneLine runs a command line that must fail: a non-zero exit and
// one line on stderr that mentions want.
func failsInOneLine(t *testing.T, args []string, want string) {
	t.Helper()
	code, out, errs := runCmd(args...)
	if code == 0 {
		t.Fatalf("exit 0, output:\n%s", out)
	}
	if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "nexttoken: ") || !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want one line mentioning %q", errs, want)
	}
}

func TestUsage(t *testing.T) {
	if code, _, errs := runCmd(); code != 2 || !strings.Contains(errs, "usage") {
		t.Errorf("no command: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runCmd("fly"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
	if code, out, _ := runCmd("trace", "-h"); code != 0 || !strings.Contains(out, "--logits") && !strings.Contains(out, "-logits") {
		t.Errorf("trace -h: exit %d, output %q", code, out)
	}
	// --model's help names every type of weights a GGUF file may have.
	_, out, _ := runCmd("trace", "-h")
	for _, typ := range []string{"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q6_K"} {
		if !regexp.MustCompile(`[^\w]` + typ + `[^\w]`).MatchString(out) {
			t.Errorf("trace -h does not name %s among the GGUF weights it runs", typ)
		}
	}
}

// TestPromptFile reads a prompt from a file; a book that cannot fit the
// context is refused before it is encoded.
func TestPromptFile(t *testing.T) {
	dir := t.TempDir()
	short, book := filepath.Join(dir, "short.txt"), filepath.Join(dir, "book.txt")
	if err := os.WriteFile(short, []byte("Once upon a time"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(book, []byte(strings.Repeat("Once upon a time. ", 60000)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd("trace", "--model=stories260K", "--prompt-file="+short, "--steps=1")
	if code != 0 || !strings.Contains(out, `prompt "Once upon a time": 5 tokens`) {
		t.Errorf("exit %d, %s\n%s", code, errs, out)
	}
	failsInOneLine(t, []string{"trace", "--model=stories260K", "--prompt-file=" + book}, "the prompt is at least")
}

// TestHugeContextCheckpoint runs a hostile checkpoint: a 16 MB file
// whose header asks for a context of 2^20 positions over 1,024 layers, a
// 128 GiB cache if allocated up front. The cache grows as it fills, so a
// short session costs megabytes.
func TestHugeContextCheckpoint(t *testing.T) {
	m, err := checkpoint.New(checkpoint.Config{Dim: 16, HiddenDim: 16, Layers: 1024, Heads: 8, KVHeads: 8,
		VocabSize: 512, SeqLen: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kv.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.Write(f, m); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errs := runCmd("trace", "--model="+path, "--tokenizer=../../web/models/tok512.bin", "--prompt=Once", "--steps=3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "step 3 ") {
		t.Errorf("output lacks step 3:\n%s", out)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<30 {
		t.Errorf("the session allocated %d MB", grew>>20)
	}
}

// TestNumberGrammar types the same numbers into a link and a flag: a
// setting and the step count take one grammar, so each is taken by both or
// refused by both.
func TestNumberGrammar(t *testing.T) {
	for _, tc := range []struct {
		param, flag string
		values      []string
	}{
		{"seed", "--seed", []string{"1000", "1e3", "1000.0", "0x10", "1_000", "+7", " 7", "9007199254740991", "9007199254740992"}},
		{"top_k", "--top-k", []string{"40", "4e1", "0x28", "40.5"}},
		{"temperature", "--temperature", []string{"0.5", "5e-1", ".5", "0x1p-1", "1_0", "Inf"}},
		{"steps", "--steps", []string{"3", "3e0", "0x3", "1_0", "+3", "3.0"}},
	} {
		for _, v := range tc.values {
			_, linkErr := link.Parse(url.Values{"model": {"toy"}, tc.param: {v}})
			code, _, errs := runCmd("trace", "--model=toy", "--prompt=The", tc.flag+"="+v)
			if (linkErr == nil) != (code == 0) {
				t.Errorf("%s %q: the link's error is %v, the flag's exit %d (%s)", tc.param, v, linkErr, code, errs)
			}
		}
	}
}
