//go:build !js

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"nexttoken/engine/randmodel"
)

// TestMeasure measures nexttoken trace as a program on a random checkpoint
// of stories15M's shape (package randmodel, written into a temporary
// folder), over 256 steps of "Once upon a time" at temperature 0.8 and
// top-p 0.9: its peak resident memory, and the bytes per step of --json,
// compact and with --vectors. It is a measurement, not a test: make measure
// runs it, with NEXTTOKEN_MEASURE=1. It builds the command (buildCommand).
//
// Peak RSS is the kernel's ru_maxrss of the process, read with
// /usr/bin/time -v where it exists and otherwise from the rusage Go's
// os/exec gets from wait4: the same figure.
func TestMeasure(t *testing.T) {
	if os.Getenv("NEXTTOKEN_MEASURE") == "" {
		t.Skip("a measurement: make measure runs it")
	}
	bin := buildCommand(t)
	dir := t.TempDir()
	if err := randmodel.Write(dir, randmodel.Stories15M, 15); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, randmodel.ModelFile)
	info, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"trace", "--model=" + model, "--tokenizer=" + filepath.Join(dir, randmodel.TokenizerFile),
		"--prompt=Once upon a time", "--temperature=0.8", "--top-p=0.9"}
	t.Logf("checkpoint DIR/%s: %d bytes (%.1f MB)", randmodel.ModelFile, info.Size(), float64(info.Size())/(1<<20))

	text := runMeasured(t, bin, append(args, "--steps=256"))
	t.Logf("nexttoken %s --steps=256 (DIR=%s): peak RSS %d KB (%.1f MB, %.2f× the checkpoint; %s), %.2f s, %d steps",
		strings.ReplaceAll(strings.Join(args, " "), dir, "DIR"), dir, text.maxRSS, float64(text.maxRSS)/1024,
		float64(text.maxRSS)*1024/float64(info.Size()), text.rssFrom, text.wall.Seconds(), text.steps)

	compact := runMeasured(t, bin, append(args, "--steps=256", "--json"))
	perStep := compact.bytes / int64(compact.steps)
	t.Logf("--json: %d bytes for %d steps, %d bytes per step (%.1f KB); peak RSS %.1f MB",
		compact.bytes, compact.steps, perStep, float64(perStep)/1024, float64(compact.maxRSS)/1024)
	if perStep > 64<<10 {
		t.Errorf("--json writes %d bytes per step, more than 64 KB", perStep)
	}

	// Vectors cost megabytes a step: a few steps tell the rate.
	const vectorSteps = 8
	vectors := runMeasured(t, bin, append(args, fmt.Sprintf("--steps=%d", vectorSteps), "--json", "--vectors"))
	t.Logf("--json --vectors: %d bytes for %d steps, %d bytes per step (%.2f MB); peak RSS %.1f MB",
		vectors.bytes, vectors.steps, vectors.bytes/int64(vectors.steps),
		float64(vectors.bytes)/float64(vectors.steps)/(1<<20), float64(vectors.maxRSS)/1024)
}

// buildCommand builds nexttoken into a temporary folder and returns the
// program's path.
func buildCommand(t *testing.T) string {
	t.Helper()
	return goBuild(t, ".", "nexttoken")
}

// goCommand is the go command: $GO, or go on the PATH.
func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// goBuild builds the package pkg into the file name of a temporary
// folder, with env added to the go command's environment, and returns the
// file's path.
func goBuild(t *testing.T, pkg, name string, env ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(goCommand(), "build", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// measuredRun is what runMeasured saw of one run of the command.
type measuredRun struct {
	maxRSS  int64  // KB
	rssFrom string // where maxRSS was read
	wall    time.Duration
	bytes   int64 // written to stdout
	steps   int   // "step N" lines, or the steps of the JSON trace
}

// runMeasured runs bin with args, counting its output, and reads its peak
// resident memory.
func runMeasured(t *testing.T, bin string, args []string) measuredRun {
	t.Helper()
	var r measuredRun
	name, cmdArgs := bin, args
	const gnuTime = "/usr/bin/time"
	useTime := false
	if _, err := os.Stat(gnuTime); err == nil {
		name, cmdArgs, useTime = gnuTime, append([]string{"-v", bin}, args...), true
	}
	cmd := exec.Command(name, cmdArgs...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	isJSON := strings.Contains(strings.Join(args, " "), "--json")
	counted := &countingReader{r: out}
	var trace struct{ Steps []json.RawMessage }
	if isJSON {
		err = json.NewDecoder(counted).Decode(&trace)
		r.steps = len(trace.Steps)
	} else {
		sc := bufio.NewScanner(counted)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "step ") {
				r.steps++
			}
		}
		err = sc.Err()
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, counted); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(cmdArgs, " "), err, stderr.String())
	}
	r.wall = time.Since(start)
	r.bytes = counted.n
	if r.steps == 0 {
		t.Fatalf("%s: no steps", strings.Join(args, " "))
	}
	if useTime {
		for _, line := range strings.Split(stderr.String(), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Maximum resident set size (kbytes): "); ok {
				r.maxRSS, err = strconv.ParseInt(v, 10, 64)
				r.rssFrom = "/usr/bin/time -v"
			}
		}
		if r.rssFrom == "" || err != nil {
			t.Fatalf("no maximum resident set size in /usr/bin/time's output:\n%s", stderr.String())
		}
		return r
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage for the process")
	}
	r.maxRSS, r.rssFrom = int64(ru.Maxrss), "getrusage (wait4)" // KB on Linux
	return r
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
