// Command runcgen regenerates ../runc.json: the token ids that llama2.c's
// run.c samples for the cases below, which TestRunCCompatible replays. It
// builds run.c from the llama2.c source given (a checkout outside this
// project), patched only to print each prompt id and each sampled id to
// stderr, with gcc -O3, and runs it on the embedded stories260K:
//
//	go run ./engine/session/testdata/runcgen LLAMA2C_DIR > engine/session/testdata/runc.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// A run of run.c: its flags beyond the model and tokenizer.
type runCase struct {
	Temperature float64
	TopP        float64
	Seed        uint64
	Steps       int // -n: positions, prompt included
	Prompt      string
}

var cases = []runCase{
	{0, 0, 42, 64, "Once upon a time"},
	{1.0, 0.9, 42, 128, "Once upon a time"},
	{0.8, 0, 7, 128, "Lily"},
	{1.0, 0.9, 1234, 256, ""},
	{0, 0, 42, 512, ""},
	// The context's last position: run.c samples one more token from it.
	{0.6, 0.9, 10, 512, "Lily"},
	// A hot run that samples EOS (id 2) and goes on: run.c stops on BOS only.
	{50, 0, 1, 512, "Once"},
}

// The patch: after encoding the prompt, print its ids; after sampling,
// print the id.
var patches = [][2]string{
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
	Command     string  `json:"command"`
	Prompt      string  `json:"prompt"`
	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p"`
	Seed        uint64  `json:"seed"`
	PromptIDs   []int   `json:"prompt_ids"`
	Generated   []int   `json:"generated"`
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
	out := struct {
		About string     `json:"about"`
		Cases []jsonCase `json:"cases"`
	}{About: "Token ids printed by llama2.c's run.c (built with gcc -O3 from the source given to runcgen, patched only to print each prompt id and each sampled id to stderr) for web/models/stories260K.bin with tok512.bin; regenerate with go run ./engine/session/testdata/runcgen LLAMA2C_DIR. run.c's -n counts positions, prompt included; 'generated' lists every sampled id in order, and run.c stops after sampling BOS (id 1). The seed of greedy runs is irrelevant (no draw)."}
	for _, c := range cases {
		args := []string{filepath.Join(models, "stories260K.bin"), "-z", filepath.Join(models, "tok512.bin"),
			"-t", strconv.FormatFloat(c.Temperature, 'f', -1, 64), "-p", strconv.FormatFloat(c.TopP, 'f', -1, 64),
			"-s", strconv.FormatUint(c.Seed, 10), "-n", strconv.Itoa(c.Steps), "-i", c.Prompt}
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %v\n%s", args, err, stderr.String())
		}
		jc := jsonCase{Command: "./run stories260K.bin -z tok512.bin " + strings.Join(quoted(args[3:]), " "),
			Prompt: c.Prompt, Temperature: c.Temperature, TopP: c.TopP, Seed: c.Seed, PromptIDs: []int{}, Generated: []int{}}
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
