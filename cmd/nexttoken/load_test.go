//go:build !js

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"nexttoken"
)

// loadPaths are what a visit to the playground fetches, and the
// documentation page.
var loadPaths = []string{"/", "/app.wasm", "/web/app.css", "/docs/"}

// loadAccept is the Accept-Encoding Chromium sends.
const loadAccept = "gzip, deflate, br, zstd"

// TestLoad sends a few hundred requests over loadPaths, eight at a time,
// to serve's handler in this process over a test web folder, and checks
// that every one gets the right bytes.
func TestLoad(t *testing.T) {
	dir := testWebDir(t)
	h := testServer(t, dir)
	srv := httptest.NewUnstartedServer(h)
	srv.Config = httpServer(h)
	srv.Start()
	defer srv.Close()
	before := goHeap()
	r := load(t, srv.URL, dir, 400, 8)
	r.report(t, fmt.Sprintf("serve's handler in this process, Go heap %s before, %s after", before, goHeap()))
	if r.errors > 0 {
		t.Errorf("%d errors, the first: %s", r.errors, r.firstError)
	}
}

// TestLoadMeasure sends NEXTTOKEN_LOAD_REQUESTS requests (2000) over
// loadPaths, NEXTTOKEN_LOAD_CONCURRENCY at a time (16), to nexttoken serve
// on a loopback port over the web folder, with app.wasm built, and reports
// requests/s, errors, the latency's median and 99th percentile, and the
// server's resident memory before and after; then stops the server. It is
// a measurement: make loadtest runs it, with NEXTTOKEN_LOAD=1; it checks
// no timing, but fails on an error or an unclean shutdown. It builds the
// command (buildCommand).
func TestLoadMeasure(t *testing.T) {
	if os.Getenv("NEXTTOKEN_LOAD") == "" {
		t.Skip("a measurement: make loadtest runs it")
	}
	requests := envInt(t, "NEXTTOKEN_LOAD_REQUESTS", 2000)
	concurrency := envInt(t, "NEXTTOKEN_LOAD_CONCURRENCY", 16)
	const web = "../../web"
	srv := startServe(t, web)
	before := rss(srv.pid, "VmRSS")
	r := load(t, srv.url, web, requests, concurrency)
	r.report(t, fmt.Sprintf("nexttoken serve, RSS %s before, %s after (peak %s)", before, rss(srv.pid, "VmRSS"), rss(srv.pid, "VmHWM")))
	if r.errors > 0 {
		t.Errorf("%d errors, the first: %s", r.errors, r.firstError)
	}
	srv.stop(t)
}

// served is nexttoken serve running as a process of its own, so that its
// memory is its own.
type served struct {
	cmd    *exec.Cmd
	url    string // without the final slash
	pid    int
	lines  *bufio.Scanner // what it prints after its address
	stderr *bytes.Buffer
}

// startServe starts nexttoken serve, built from this package
// (buildCommand), on a loopback port over the web folder web, and waits
// for it to print its address. The test kills it if it is still running
// at the end.
func startServe(t *testing.T, web string) *served {
	t.Helper()
	cmd := exec.Command(buildCommand(t), "serve", "--addr=127.0.0.1:0", "--web="+web)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("nexttoken serve said nothing: %s", stderr.String())
	}
	url, ok := strings.CutPrefix(lines.Text(), "nexttoken: the playground is at ")
	if !ok {
		t.Fatalf("nexttoken serve said %q", lines.Text())
	}
	return &served{cmd: cmd, url: strings.TrimSuffix(url, "/"), pid: cmd.Process.Pid, lines: lines, stderr: &stderr}
}

// stop stops the server with SIGTERM, checks that it shut down cleanly and
// returns what the system says of its run (its CPU time).
func (s *served) stop(t *testing.T) *os.ProcessState {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var said []string
	for s.lines.Scan() {
		said = append(said, s.lines.Text())
	}
	if err := s.cmd.Wait(); err != nil || !slices.Equal(said, []string{"nexttoken: shut down cleanly"}) {
		t.Errorf("stopped: %v, said %q, stderr %q", err, said, s.stderr.String())
	}
	return s.cmd.ProcessState
}

// envInt is the positive number in the environment variable name, or def.
func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, s)
	}
	return n
}

// loadResult is what load saw.
type loadResult struct {
	requests, concurrency int
	elapsed               time.Duration
	first                 map[string]fetched         // by path
	latencies             map[string][]time.Duration // by path, sorted
	bytes                 int64                      // received, all bodies
	errors                int
	firstError            string
}

// load fetches each of loadPaths once and checks its bytes against the web
// folder web, then sends n requests over them in turn, c at a time, and
// counts as an error any response whose status or bytes differ from the
// first.
func load(t *testing.T, base, web string, n, c int) loadResult {
	t.Helper()
	client := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: c, DisableCompression: true},
		Timeout:   time.Minute,
	}
	r := loadResult{requests: n, concurrency: c, first: map[string]fetched{}, latencies: map[string][]time.Duration{}}
	for _, path := range loadPaths {
		f, err := fetchOnce(client, base+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := checkLoadBody(web, path, f); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r.first[path] = f
	}

	var mu sync.Mutex
	r.elapsed = inParallel(n, c, func(i int) {
		path := loadPaths[i%len(loadPaths)]
		begun := time.Now()
		f, err := fetchOnce(client, base+path)
		took := time.Since(begun)
		if want := r.first[path]; err == nil && (f.encoding != want.encoding || !bytes.Equal(f.body, want.body)) {
			err = fmt.Errorf("%d bytes (%q), not the %d bytes (%q) of the first response", len(f.body), f.encoding, len(want.body), want.encoding)
		}
		mu.Lock()
		defer mu.Unlock()
		r.latencies[path] = append(r.latencies[path], took)
		r.bytes += int64(len(f.body))
		if err != nil {
			if r.errors == 0 {
				r.firstError = path + ": " + err.Error()
			}
			r.errors++
		}
	})
	for _, d := range r.latencies {
		slices.Sort(d)
	}
	return r
}

// inParallel calls do with each of 0 to n−1, c calls at a time, and
// returns how long they took.
func inParallel(n, c int, do func(i int)) time.Duration {
	jobs := make(chan int, n)
	for i := range n {
		jobs <- i
	}
	close(jobs)
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			for i := range jobs {
				do(i)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// fetched is a response's body as sent and its Content-Encoding.
type fetched struct {
	body     []byte
	encoding string
}

// fetchOnce GETs url as Chromium would and checks the status and length.
func fetchOnce(client *http.Client, url string) (fetched, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return fetched{}, err
	}
	req.Header.Set("Accept-Encoding", loadAccept)
	res, err := client.Do(req)
	if err != nil {
		return fetched{}, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	f := fetched{body, res.Header.Get("Content-Encoding")}
	switch {
	case err != nil:
		return f, err
	case res.StatusCode != http.StatusOK:
		return f, fmt.Errorf("status %d", res.StatusCode)
	case res.Header.Get("Content-Length") != strconv.Itoa(len(body)):
		return f, fmt.Errorf("Content-Length %q for %d bytes", res.Header.Get("Content-Length"), len(body))
	}
	return f, nil
}

// checkLoadBody checks a response to a path of loadPaths against what it
// is made from: the playground's page, the documentation page, files of
// the web folder web (app.wasm.br as it is: this package decodes no
// brotli).
func checkLoadBody(web, path string, f fetched) error {
	body, err := f.body, error(nil)
	if f.encoding == "gzip" {
		if body, err = gunzip(body); err != nil {
			return err
		}
	}
	var want []byte
	switch path {
	case "/":
		if !bytes.Contains(body, []byte(`id="playground"`)) {
			return fmt.Errorf("not the playground's page: %.200q", body)
		}
		return nil
	case "/docs/":
		want = nexttoken.IndexHTML
	default:
		name := strings.TrimPrefix(strings.TrimPrefix(path, "/web"), "/")
		if f.encoding == "br" {
			name += ".br"
		}
		if want, err = os.ReadFile(filepath.Join(web, name)); err != nil {
			return err
		}
	}
	if !bytes.Equal(body, want) {
		return fmt.Errorf("%d bytes (%q) differ from the %d they are made from", len(f.body), f.encoding, len(want))
	}
	return nil
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// report logs what load saw, with what served it.
func (r loadResult) report(t *testing.T, server string) {
	t.Helper()
	var all []time.Duration
	for _, d := range r.latencies {
		all = append(all, d...)
	}
	slices.Sort(all)
	t.Logf("%s: %d requests, %d at a time, in turn over %s (Accept-Encoding: %s)",
		server, r.requests, r.concurrency, strings.Join(loadPaths, " "), loadAccept)
	t.Logf("  %.0f requests/s, %d errors, latency p50 %s, p99 %s; %s received in %s",
		float64(r.requests)/r.elapsed.Seconds(), r.errors, percentile(all, 50), percentile(all, 99),
		megabytes(r.bytes), r.elapsed.Round(time.Millisecond))
	for _, path := range loadPaths {
		first := r.first[path]
		t.Logf("  %-12s p50 %s, p99 %s, %s (%s)", path, percentile(r.latencies[path], 50),
			percentile(r.latencies[path], 99), megabytes(int64(len(first.body))), cmp.Or(first.encoding, "identity"))
	}
}

// percentile is the p-th percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "-"
	}
	i := (len(sorted)*p + 99) / 100
	return fmt.Sprintf("%.2f ms", float64(sorted[max(i, 1)-1])/float64(time.Millisecond))
}

// megabytes writes a size in bytes below 1 MB, in MB above.
func megabytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// goHeap is this process's live heap.
func goHeap() string {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return megabytes(int64(m.HeapAlloc))
}

// rss is a figure of a process's memory from /proc/PID/status, such as
// VmRSS (resident now) or VmHWM (resident at most).
func rss(pid int, field string) string {
	kb, err := statusKB(pid, field)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return megabytes(kb << 10)
}

// statusKB is a figure of a process's memory from /proc/PID/status, in KB.
func statusKB(pid int, field string) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
