package session_test

// Measurements of a session against the bare engine, on stories260K and on
// a random checkpoint of stories15M's shape (package randmodel), and in the
// benchmarks also on random Q8_0 models of stories15M's and SmolLM2-135M's
// shapes (quantizedModels), decoding
// "Once upon a time" with temperature 0.8 and top-p 0.9 for up to 256
// steps, in the sampler's chain mode (BenchmarkDecode also in run.c mode).
// make measure runs them; see the Makefile.

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
	"nexttoken/web/models"
)

// measureSteps is how many steps a measured session takes, at most.
const measureSteps = 256

// measureSpec is the session every measurement of m runs.
func measureSpec(m measured) session.Spec {
	return session.Spec{Model: m.name, Prompt: "Once upon a time",
		Sampler: sampler.Settings{Mode: m.mode, Temperature: 0.8, TopP: 0.9, Seed: 42}}
}

type measured struct {
	name  string
	model *session.Model
	mode  sampler.Mode // the sampler's: sampler.Chain (or "") or sampler.RunC
}

// load is a Loader that hands out the already loaded model, so that a
// session costs only its own memory.
func (m measured) load(string) (*session.Model, error) { return m.model, nil }

var stories15MShape = sync.OnceValues(func() (*session.Model, error) {
	ckpt, v, err := randmodel.Build(randmodel.Stories15M, 15)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.New(v)
	if err != nil {
		return nil, err
	}
	return &session.Model{Name: "stories15M-shape", Checkpoint: ckpt, Tokenizer: tok}, nil
})

func measuredModels(tb testing.TB) []measured {
	tb.Helper()
	m260K, err := models.Load("stories260K")
	if err != nil {
		tb.Fatal(err)
	}
	m15M, err := stories15MShape()
	if err != nil {
		tb.Fatal(err)
	}
	return []measured{{name: "stories260K", model: m260K}, {name: "stories15M-shape", model: m15M}}
}

// quantizedModels are random Q8_0 models (randmodel.BuildQuantized) of
// stories15M's shape and of SmolLM2-135M's, for the benchmarks only: the
// second holds 144 MB.
var quantizedModels = sync.OnceValues(func() ([]measured, error) {
	var all []measured
	for _, c := range []struct {
		name   string
		config checkpoint.Config
	}{{"stories15M-shape-Q8_0", randmodel.Stories15M}, {"SmolLM2-135M-shape-Q8_0", randmodel.SmolLM2}} {
		ckpt, v, err := randmodel.BuildQuantized(c.config, 15, randmodel.Every(quant.Q8_0))
		if err != nil {
			return nil, err
		}
		tok, err := tokenizer.New(v)
		if err != nil {
			return nil, err
		}
		all = append(all, measured{name: c.name, model: &session.Model{Name: c.name, Checkpoint: ckpt, Tokenizer: tok}})
	}
	return all, nil
})

// newMeasured starts a session of m after prefill: no steps yet.
func newMeasured(tb testing.TB, m measured) *session.Session {
	tb.Helper()
	s, err := session.New(measureSpec(m), m.load)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// decode runs up to measureSteps steps of s, stopping where the session
// stops, and calls each (if not nil) after every step.
func decode(tb testing.TB, s *session.Session, each func()) {
	for range measureSteps {
		if err := s.Step(); errors.Is(err, session.ErrStopped) {
			return
		} else if err != nil {
			tb.Fatal(err)
		}
		if each != nil {
			each()
		}
	}
}

// BenchmarkDecode compares, side by side, decoding with the bare engine
// (transformer.Forward in a loop, nothing else) and with a session
// (session.Step in a loop: the sampler's choice, the top candidates and the
// compact trace as well). Both feed the same tokens at the same positions
// after the same prefill, which is not timed; tok/s counts forward passes.
// Besides tok/s (wall time over every iteration) each reports best-tok/s
// (the sum of each pass's or step's fastest time over the iterations) and
// cpu-tok/s (over the CPU time of its thread, on Linux), which other
// programs on a busy machine disturb less; the parent benchmark logs the
// three ratios session/bare (go test -v). The -runc benchmarks decode in
// run.c mode, whose forward pass sums as run.c does.
func BenchmarkDecode(b *testing.B) {
	var all []measured
	for _, m := range measuredModels(b) {
		runc := m
		runc.mode = sampler.RunC
		all = append(all, m, runc)
	}
	quantized, err := quantizedModels()
	if err != nil {
		b.Fatal(err)
	}
	all = append(all, quantized...)
	for _, m := range all {
		name := m.name
		if m.mode == sampler.RunC {
			name += "-runc"
		}
		b.Run(name, func(b *testing.B) {
			// The tokens a session chooses, and the passes it makes.
			ref := newMeasured(b, m)
			prompt := len(ref.Trace().Prompt)
			decode(b, ref, nil)
			context := make([]int, 0, prompt+measureSteps)
			for _, t := range ref.Trace().Prompt {
				context = append(context, t.ID)
			}
			for _, st := range ref.Trace().Steps {
				context = append(context, st.Token)
			}
			passes := ref.Transformer().Cache.Len - prompt
			rates := map[string]decodeRate{}

			b.Run("bare", func(b *testing.B) {
				tr := transformer.NewWith(m.model.Checkpoint, transformer.Options{RunC: m.mode == sampler.RunC})
				rates["bare"] = timeDecode(b, passes, func() {
					if _, err := tr.Prefill(context[:prompt], 0); err != nil {
						b.Fatal(err)
					}
				}, func(lap func()) {
					for pos := prompt; pos < prompt+passes; pos++ {
						if _, err := tr.Forward(context[pos], pos); err != nil {
							b.Fatal(err)
						}
						lap()
					}
				})
			})
			b.Run("session", func(b *testing.B) {
				b.ReportAllocs()
				var s *session.Session
				rates["session"] = timeDecode(b, passes, func() {
					s = newMeasured(b, m)
				}, func(lap func()) {
					decode(b, s, lap)
					if got := s.Transformer().Cache.Len - prompt; got != passes {
						b.Fatalf("%d passes, the first run made %d", got, passes)
					}
				})
			})
			bare, sess := rates["bare"], rates["session"]
			if bare.wall > 0 && sess.wall > 0 {
				b.Logf("%s: %d steps, %d passes; session/bare = %.3f (tok/s %.0f / %.0f), best %.3f (%.0f / %.0f), cpu %.3f (%.0f / %.0f)",
					m.name, len(ref.Trace().Steps), passes,
					sess.wall/bare.wall, sess.wall, bare.wall,
					sess.best/bare.best, sess.best, bare.best,
					ratio(sess.cpu, bare.cpu), sess.cpu, bare.cpu)
			}
		})
	}
}

// BenchmarkDecodeFiles decodes each GGUF file that NEXTTOKEN_BENCH_GGUF
// names (paths separated by commas) as the llama.cpp harness's bench does
// (engine/gguf/testdata/quantized/harness.c): the bare engine, from token
// 1 at position 0, each pass's first largest logit fed back,
// NEXTTOKEN_BENCH_TOKENS passes (default 128), every one a decode pass
// (there is no prompt to prefill); and logs the tokens it chose, for
// comparison with the harness's on the same file. NEXTTOKEN_BENCH_THREADS
// threads (default 1, transformer.Threads) share each product; cpu-tok/s
// counts the calling thread's time alone, so compare tok/s across
// threads. docs/performance.md has the commands. Without files it
// measures nothing.
func BenchmarkDecodeFiles(b *testing.B) {
	paths := os.Getenv("NEXTTOKEN_BENCH_GGUF")
	if paths == "" {
		b.Skip("NEXTTOKEN_BENCH_GGUF names no files")
	}
	n, err := strconv.Atoi(cmp.Or(os.Getenv("NEXTTOKEN_BENCH_TOKENS"), "128"))
	if err != nil || n < 1 {
		b.Fatalf("NEXTTOKEN_BENCH_TOKENS=%q is not a count of tokens", os.Getenv("NEXTTOKEN_BENCH_TOKENS"))
	}
	threads, err := strconv.Atoi(cmp.Or(os.Getenv("NEXTTOKEN_BENCH_THREADS"), "1"))
	if err != nil || threads < 1 {
		b.Fatalf("NEXTTOKEN_BENCH_THREADS=%q is not a count of threads", os.Getenv("NEXTTOKEN_BENCH_THREADS"))
	}
	kernels := benchKernels(b, threads)
	for _, path := range strings.Split(paths, ",") {
		f, closer, err := gguf.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		m, err := f.Model()
		closer.Close()
		if err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			tr := transformer.NewWith(m, transformer.Options{Kernels: kernels})
			tokens := make([]int, 0, n)
			timeDecode(b, n, func() { tokens = tokens[:0] }, func(lap func()) {
				tok := 1
				for pos := range n {
					logits, err := tr.Forward(tok, pos)
					if err != nil {
						b.Fatal(err)
					}
					tok = sampler.Argmax(logits)
					tokens = append(tokens, tok)
					lap()
				}
			})
			b.Logf("%s: greedy tokens %v", path, tokens)
			b.Logf("%s: the closest choices %v", path, closestChoices(b, tr, tokens, 3))
		})
	}
}

// closestChoices decodes tokens again with tr, fed as a greedy decode
// from token 1 chose them, and returns the k passes whose largest logit
// led the next by least, in units of the logits' standard deviation:
// where another program's float rounding could choose otherwise.
func closestChoices(b *testing.B, tr *transformer.Transformer, tokens []int, k int) []string {
	type choice struct {
		pos    int
		margin float64
	}
	var all []choice
	tok := 1
	for pos, next := range tokens {
		logits, err := tr.Forward(tok, pos)
		if err != nil {
			b.Fatal(err)
		}
		var mean, sq float64
		first, second := math.Inf(-1), math.Inf(-1)
		for _, l := range logits {
			v := float64(l)
			mean += v
			sq += v * v
			if v > first {
				first, second = v, first
			} else if v > second {
				second = v
			}
		}
		mean /= float64(len(logits))
		sd := math.Sqrt(sq/float64(len(logits)) - mean*mean)
		all = append(all, choice{pos, (first - second) / sd})
		tok = next
	}
	slices.SortFunc(all, func(a, b choice) int { return cmp.Compare(a.margin, b.margin) })
	var out []string
	for _, c := range all[:min(k, len(all))] {
		out = append(out, fmt.Sprintf("pass %d by %.2g sd", c.pos, c.margin))
	}
	return out
}

// decodeRate is a decoding speed in forward passes per second: over the
// wall time of every iteration, over the sum of each pass's (or step's)
// fastest time, and over the CPU time of the benchmark's thread (0 where
// it cannot be read).
type decodeRate struct{ wall, best, cpu float64 }

// timeDecode runs setup (not timed) and run (timed) once per iteration of
// b, run making passes forward passes and calling lap after each pass (or
// step), and reports and returns their rates.
func timeDecode(b *testing.B, passes int, setup func(), run func(lap func())) decodeRate {
	runtime.LockOSThread() // for the thread's CPU time
	defer runtime.UnlockOSThread()
	var cpu time.Duration
	var fastest []time.Duration // of each lap, over the iterations
	for b.Loop() {
		b.StopTimer()
		setup()
		b.StartTimer()
		startCPU := threadCPU()
		i, last := 0, time.Now()
		run(func() {
			now := time.Now()
			if d := now.Sub(last); i == len(fastest) {
				fastest = append(fastest, d)
			} else {
				fastest[i] = min(fastest[i], d)
			}
			i, last = i+1, now
		})
		cpu += threadCPU() - startCPU
	}
	var best time.Duration
	for _, d := range fastest {
		best += d
	}
	r := decodeRate{
		wall: float64(passes*b.N) / b.Elapsed().Seconds(),
		best: float64(passes) / best.Seconds(),
	}
	b.ReportMetric(r.wall, "tok/s")
	b.ReportMetric(r.best, "best-tok/s")
	if cpu > 0 {
		r.cpu = float64(passes*b.N) / cpu.Seconds()
		b.ReportMetric(r.cpu, "cpu-tok/s")
	}
	return r
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// sessionMemory is what a session holds, beyond its model, while and after
// it decodes.
type sessionMemory struct {
	steps int
	// after: the heap of the session after its steps, collected.
	// peakLive: the largest heap after any step, collected after each.
	// peak: the largest heap after any step, as the program runs (garbage
	// not yet collected counts).
	after, peakLive, peak int64
	allocPerStep          int64 // bytes allocated per step (after prefill)
}

// measureSession runs one measured session of m and reads the heap with
// runtime.MemStats after every step, and after a garbage collection at the
// end. With live, it runs a second session that collects garbage before
// each reading, for peakLive.
func measureSession(tb testing.TB, m measured, live bool) sessionMemory {
	var ms runtime.MemStats
	heap := func(collect bool) int64 {
		if collect {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	var r sessionMemory
	passes := []bool{false}
	if live {
		passes = append(passes, true)
	}
	for _, collect := range passes {
		base := heap(true)
		s := newMeasured(tb, m)
		peak := heap(collect) - base
		total := ms.TotalAlloc
		decode(tb, s, func() { peak = max(peak, heap(collect)-base) })
		if collect {
			r.peakLive = peak
			continue
		}
		r.steps = len(s.Trace().Steps)
		r.peak = peak
		r.allocPerStep = int64(ms.TotalAlloc-total) / int64(r.steps)
		r.after = heap(true) - base
		runtime.KeepAlive(s)
	}
	return r
}

// TestSessionMemory checks target (a): a session of stories15M's shape
// holds at most 64 MB beyond the model's weights and tokenizer, after its
// steps and at its peak.
func TestSessionMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 15M-parameter model")
	}
	const limit = 64 << 20
	for _, m := range measuredModels(t) {
		r := measureSession(t, m, false)
		t.Logf("%s: %d steps; session heap %.2f MB after them, %.2f MB at its peak; %.1f KB allocated per step",
			m.name, r.steps, mb(r.after), mb(r.peak), float64(r.allocPerStep)/1024)
		if r.after > limit || r.peak > limit {
			t.Errorf("%s: the session holds %.2f MB after its steps, %.2f MB at its peak; want ≤ %d MB",
				m.name, mb(r.after), mb(r.peak), limit>>20)
		}
	}
}

// BenchmarkSessionMemory reports what TestSessionMemory measures, as
// metrics: session-MB after 256 steps, peak-MB, peak-live-MB and B/step.
func BenchmarkSessionMemory(b *testing.B) {
	for _, m := range measuredModels(b) {
		b.Run(m.name, func(b *testing.B) {
			var r sessionMemory
			for b.Loop() {
				r = measureSession(b, m, true)
			}
			b.ReportMetric(mb(r.after), "session-MB")
			b.ReportMetric(mb(r.peak), "peak-MB")
			b.ReportMetric(mb(r.peakLive), "peak-live-MB")
			b.ReportMetric(float64(r.allocPerStep), "B/step")
			b.ReportMetric(float64(r.steps), "steps")
		})
	}
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// BenchmarkGGUFHeap measures the memory a large model costs: the peak heap of
// a 256-step session of SmolLM2-135M's shape in Q8_0 (randmodel.SmolLM2,
// random blocks) against the size of its GGUF file. The file is written
// to a temporary folder, then loaded as nexttoken trace loads one
// (gguf.Open: the weights are read from the file into the matrices, never
// held twice). The heap is runtime.MemStats.HeapAlloc, garbage not yet
// collected included, read after loading and after every step, less the
// heap before loading; reported as heap-MB, file-MB and heap/file.
func BenchmarkGGUFHeap(b *testing.B) {
	path := filepath.Join(b.TempDir(), "model.gguf")
	if err := writeQ8_0GGUF(path, randmodel.SmolLM2); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	var peak int64
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base := int64(ms.HeapAlloc)
		read := func() {
			runtime.ReadMemStats(&ms)
			peak = max(peak, int64(ms.HeapAlloc)-base)
		}
		m, err := loadGGUF(path)
		if err != nil {
			b.Fatal(err)
		}
		read()
		s := newMeasured(b, measured{name: m.Name, model: m})
		read()
		decode(b, s, read)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(mb(peak), "heap-MB")
	b.ReportMetric(mb(info.Size()), "file-MB")
	b.ReportMetric(float64(peak)/float64(info.Size()), "heap/file")
}

// writeQ8_0GGUF writes a random Q8_0 model of configuration c to path.
func writeQ8_0GGUF(path string, c checkpoint.Config) error {
	m, v, err := randmodel.BuildQuantized(c, 15, randmodel.Every(quant.Q8_0))
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = gguf.WriteLlama2c(w, m, v, gguf.Llama2cOptions{TiedOutput: true})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// loadGGUF loads the model and tokenizer of a GGUF file as nexttoken
// trace's loadGGUF does.
func loadGGUF(path string) (*session.Model, error) {
	f, closer, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	m, err := f.Model()
	if err != nil {
		return nil, err
	}
	tok, err := f.Tokenizer()
	if err != nil {
		return nil, err
	}
	return session.Pair(path, m, tok)
}
