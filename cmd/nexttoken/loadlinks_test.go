//go:build !js

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/toymodel"
	"nexttoken/wasm/play"
)

// A linkKind is one kind of link that TestLoadLinks sends: how often, what
// the page refuses of it, and how one is made.
type linkKind struct {
	name   string
	weight int // links of this kind in every hundred
	// refused is the part of the link the page cannot read: "" for
	// none, "session" for what package link refuses (the page says
	// why), "view" for an embed's view that is none of play.Views. A
	// link that reads may still name a model the server does not have.
	refused string
	// make writes a link, a path and its query, distinct for each seed.
	make func(r *rand.Rand, seed uint64) string
}

// linkKinds mix what documentation writers and readers send — readable
// links (link.Query writes them as the share panel does), embeds
// (play.EmbedLink), the toy model, the worked example, steps from a few to
// link.MaxSteps, prompts of kilobytes — with what hostile links send.
var linkKinds = []linkKind{
	{"stories260K", 22, "", func(r *rand.Rand, seed uint64) string {
		return readableLink(storySpec(r, seed, 16+r.IntN(512), someSteps(r)))
	}},
	{"long prompt", 10, "", func(r *rand.Rand, seed uint64) string {
		return readableLink(storySpec(r, seed, 1<<10+r.IntN(link.MaxPrompt-1<<10+1), someSteps(r)))
	}},
	{"most steps", 8, "", func(r *rand.Rand, seed uint64) string {
		return readableLink(storySpec(r, seed, 16+r.IntN(256), link.MaxSteps))
	}},
	{"embed", 20, "", func(r *rand.Rand, seed uint64) string {
		var spec session.Spec
		switch r.IntN(10) {
		case 0, 1, 2, 3, 4:
			spec = storySpec(r, seed, 16+r.IntN(1<<10), someSteps(r))
		case 5, 6, 7:
			spec = toySpec(r, seed)
		default:
			spec = logitsSpec(r, seed)
		}
		return play.EmbedLink("/", spec, pick(r, play.Views), pick(r, play.Themes), play.CompareLink{})
	}},
	{"toy", 10, "", func(r *rand.Rand, seed uint64) string { return readableLink(toySpec(r, seed)) }},
	{"worked example", 10, "", func(r *rand.Rand, seed uint64) string { return readableLink(logitsSpec(r, seed)) }},
	{"hand-typed", 5, "", func(r *rand.Rand, seed uint64) string {
		chain := pick(r, []string{"llama.cpp", "hf", "mirostat", "mirostat2", "RunC", "edkt"})
		return fmt.Sprintf("/?Model=STORIES260k&Sampler=%s&Prompt=%s&Steps=%d&SEED=%d",
			chain, url.QueryEscape(storyPrompt(r, 16+r.IntN(256))), someSteps(r), seed)
	}},

	{"huge number", 2, "session", func(r *rand.Rand, seed uint64) string {
		return storyWith(seed, pick(r, []string{"steps=99999999999999999999", "steps=" + strconv.Itoa(link.MaxSteps+1),
			"seed=18446744073709551616", "temperature=1e999", "top_k=9223372036854775808", "top_p=1e308"}))
	}},
	{"NaN", 2, "session", func(r *rand.Rand, seed uint64) string {
		return storyWith(seed, pick(r, []string{"temperature=NaN", "top_p=nan", "min_p=-NaN", "temperature=%2BInf", "steps=NaN"}))
	}},
	{"unknown model", 2, "session", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?model=gpt-%d&prompt=Once+upon+a+time&steps=%d", seed, someSteps(r))
	}},
	{"model by URL", 2, "", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?model=url:%016x:%d:https://models.example.com/m%d.gguf&prompt=%s&steps=%d",
			r.Uint64(), 1+r.IntN(1<<30), seed, url.QueryEscape(storyPrompt(r, 16+r.IntN(512))), someSteps(r))
	}},
	{"model file", 1, "", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?model=file:%016x:%d:model-%d.gguf&steps=%d", r.Uint64(), 1+r.IntN(1<<30), seed, someSteps(r))
	}},
	{"prompt too long", 1, "session", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?model=stories260K&steps=%d&prompt=%d+%s", someSteps(r), seed, strings.Repeat("a", link.MaxPrompt))
	}},
	{"value too long", 1, "session", func(r *rand.Rand, seed uint64) string {
		// As long as the server takes: more than any value may be.
		return fmt.Sprintf("/?model=stories260K&prompt=%d+%s", seed, strings.Repeat("b", maxHeaderBytes-8<<10))
	}},
	{"bad escape", 1, "session", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?model=stories260K&prompt=100%%zz+%d&steps=%d", seed, someSteps(r))
	}},
	{"invalid UTF-8", 1, "session", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?model=stories260K&prompt=%%FF%%FE%d&steps=%d", seed, someSteps(r))
	}},
	{"too many logits", 1, "session", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?model=logits&seed=%d&logits=%s", seed, strings.Repeat("0.5,", 5000)+"1")
	}},
	{"bad embed view", 1, "view", func(r *rand.Rand, seed uint64) string {
		return fmt.Sprintf("/?embed=1&view=nonsense%d&model=toy&steps=%d", seed, someSteps(r))
	}},
}

// A loadLink is a link and its kind.
type loadLink struct {
	kind *linkKind
	path string // and query
}

// loadLinks makes n distinct links, the same n every time: each hundred in
// a row holds every kind, weight times, in a shuffled order; the link's
// index makes its seed, and so the link, distinct.
func loadLinks(n int) []loadLink {
	r := rand.New(rand.NewPCG(21, 1000))
	var slots []*linkKind
	for i := range linkKinds {
		for range linkKinds[i].weight {
			slots = append(slots, &linkKinds[i])
		}
	}
	links := make([]loadLink, n)
	for i := range links {
		if i%len(slots) == 0 {
			r.Shuffle(len(slots), func(a, b int) { slots[a], slots[b] = slots[b], slots[a] })
		}
		k := slots[i%len(slots)]
		// Seeds from 1000 on: none is 42, the default seed, which a
		// readable link leaves out.
		links[i] = loadLink{k, k.make(r, uint64(1000+i))}
	}
	return links
}

// readableLink is the readable link of spec, as link.Query writes it.
func readableLink(spec session.Spec) string {
	q, _ := link.Query(spec)
	return "/?" + q.Encode()
}

// storyWith is a stories260K link with the parameter param added.
func storyWith(seed uint64, param string) string {
	return fmt.Sprintf("/?model=stories260K&prompt=Once+upon+a+time+%d&%s", seed, param)
}

// storySpec is a stories260K session with a prompt of about promptBytes
// bytes, steps steps and settings of its own.
func storySpec(r *rand.Rand, seed uint64, promptBytes, steps int) session.Spec {
	spec := modelSpec("stories260K", someSettings(r, seed))
	spec.Prompt = storyPrompt(r, promptBytes)
	spec.Steps = steps
	return spec
}

// toySpec is a toy model session: a prompt of its words and some steps.
func toySpec(r *rand.Rand, seed uint64) session.Spec {
	spec := modelSpec("toy", someSettings(r, seed))
	words := make([]string, 1+r.IntN(8))
	for i := range words {
		words[i] = pick(r, toymodel.Words)
	}
	spec.Prompt = strings.Join(words, " ")
	spec.Steps = someSteps(r)
	return spec
}

// logitsSpec is the worked example with logits and a vocabulary of its own,
// 2 to 64 tokens, and 0 or 1 step.
func logitsSpec(r *rand.Rand, seed uint64) session.Spec {
	spec := modelSpec(session.LogitsModel, someSettings(r, seed))
	n := 2 + r.IntN(63)
	spec.Vocab, spec.Logits = make([]string, n), make([]float64, n)
	for i := range n {
		spec.Vocab[i] = pick(r, storyWords) + strconv.Itoa(i)
		spec.Logits[i] = math.Round((r.Float64()*10-5)*10) / 10
	}
	spec.Steps = r.IntN(2)
	return spec
}

// modelSpec is the session the catalog's model name opens with, with set.
func modelSpec(name string, set sampler.Settings) session.Spec {
	m, ok := catalog.Lookup(name)
	if !ok {
		panic("no model " + name + " in the catalog")
	}
	return m.Spec(set)
}

// someSettings are the default settings with seed, greedy or sampling
// with filters.
func someSettings(r *rand.Rand, seed uint64) sampler.Settings {
	set := sampler.DefaultSettings()
	set.Seed = seed
	round := func(x float64) float64 { return math.Round(x*100) / 100 }
	switch r.IntN(4) {
	case 1:
		set.Temperature = round(0.1 + 1.4*r.Float64())
	case 2:
		set.Temperature = round(0.5 + r.Float64())
		set.TopP = round(0.5 + 0.49*r.Float64())
	case 3:
		set.Temperature = round(0.5 + r.Float64())
		set.TopK = 1 + r.IntN(40)
		set.MinP = round(0.2 * r.Float64())
	}
	return set
}

// someSteps is a number of steps from 2 to link.MaxSteps, spread evenly
// over its logarithm: as many from 2 to 64 as from 64 to 2,048.
func someSteps(r *rand.Rand) int {
	return int(math.Round(math.Exp(math.Log(2) + r.Float64()*(math.Log(link.MaxSteps)-math.Log(2)))))
}

// storyWords are the words of storyPrompt: a story's, and some beyond
// ASCII.
var storyWords = []string{"Once", "upon", "a", "time", "there", "was", "little", "girl", "named", "Lily", "she",
	"loved", "to", "play", "in", "the", "park", "with", "her", "dog", "one", "day", "saw", "big", "red", "ball",
	"and", "said", "happy", "café", "naïve", "über", "日本", "🙂"}

// storyPrompt is words of storyWords, at least one, of at most size bytes
// (size at least 16).
func storyPrompt(r *rand.Rand, size int) string {
	var b strings.Builder
	for {
		w := pick(r, storyWords)
		if b.Len() > 0 {
			if b.Len()+1+len(w) > size {
				return b.String()
			}
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
}

// pick is one of from, at random.
func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }

// TestLoadLinksMix checks the links TestLoadLinks sends: the same every
// time, distinct, every kind in each hundred, each refused by the page
// exactly where its kind says, and each within the request the server
// takes.
func TestLoadLinksMix(t *testing.T) {
	links := loadLinks(1000)
	if again := loadLinks(1000); !slices.EqualFunc(links, again, func(a, b loadLink) bool { return a == b }) {
		t.Error("loadLinks made other links the second time")
	}
	seen := map[string]bool{}
	for i, l := range links {
		if seen[l.path] {
			t.Errorf("link %d (%s) is there twice: %.200s", i, l.kind.name, l.path)
		}
		seen[l.path] = true
		// The request line and a browser's headers must fit.
		if len(l.path)+4<<10 > maxHeaderBytes {
			t.Errorf("link %d (%s) has %d bytes, more than the server takes", i, l.kind.name, len(l.path))
		}
		if got := refusedPart(t, l.path); got != l.kind.refused {
			t.Errorf("link %d (%s): refused part %q, want %q: %.200s", i, l.kind.name, got, l.kind.refused, l.path)
		}
	}
	for start := 0; start < len(links); start += 100 {
		count := map[*linkKind]int{}
		for _, l := range links[start : start+100] {
			count[l.kind]++
		}
		for i := range linkKinds {
			if k := &linkKinds[i]; count[k] != k.weight {
				t.Errorf("links %d to %d: %d of kind %s, want %d", start, start+99, count[k], k.name, k.weight)
			}
		}
	}
}

// refusedPart is the part of a link that the page refuses, as linkKind's
// refused names it.
func refusedPart(t *testing.T, path string) string {
	t.Helper()
	u, err := url.Parse(path)
	if err != nil {
		t.Fatalf("%.200s: %v", path, err)
	}
	q, err := link.ParseQuery(u.RawQuery)
	if err == nil {
		_, err = link.Parse(q)
	}
	if err != nil {
		return "session"
	}
	page, bad := link.PageParams(u.RawQuery, "embed", "view")
	if len(bad) > 0 {
		t.Fatalf("%.200s: %v", path, bad[0])
	}
	if page["embed"] == "1" && !slices.Contains(play.Views, page["view"]) {
		return "view"
	}
	return ""
}

// maxServeRSS bounds the resident memory of nexttoken serve under a flood
// of links.
const maxServeRSS = 64 << 20

// linkTimeout is how long a request of TestLoadLinks may take, from the
// request sent to the last byte of its page, and floodTimeout how long
// all may take: longer is an error, and so is a link not sent by then.
// A server that answers nothing fails the test in floodTimeout plus
// linkTimeout.
const (
	linkTimeout  = 30 * time.Second
	floodTimeout = 3 * time.Minute
)

// TestLoadLinks sends NEXTTOKEN_LOAD_LINKS distinct links (1000; loadLinks
// makes them), NEXTTOKEN_LOAD_LINK_CONCURRENCY at a time (32), each once,
// to nexttoken serve on a loopback port over the web folder, with app.wasm
// built, while it reads the server's resident memory every 20 ms; then it
// stops the server. It reports the latency's p50, p90, p99 and maximum,
// all and by kind of link, requests a second, the server's peak RSS and
// CPU time, and the load average before and after, with a summary in one
// line. It is a measurement: make loadtest runs it, with NEXTTOKEN_LOAD=1;
// it checks no timing, but fails on an error — a request that fails, takes
// longer than linkTimeout or gets anything but a whole HTML page with
// status 200 (a link the page refuses gets a page that says why) — and on
// a peak RSS above maxServeRSS. It builds the command (buildCommand).
func TestLoadLinks(t *testing.T) {
	if os.Getenv("NEXTTOKEN_LOAD") == "" {
		t.Skip("a measurement: make loadtest runs it")
	}
	n := envInt(t, "NEXTTOKEN_LOAD_LINKS", 1000)
	concurrency := envInt(t, "NEXTTOKEN_LOAD_LINK_CONCURRENCY", 32)
	links := loadLinks(n)
	srv := startServe(t, "../../web")
	startLoad := loadAverage()
	rssBefore, err := statusKB(srv.pid, "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	cpuBefore, err := cpuTime(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	sampled := sampleRSS(srv.pid, 20*time.Millisecond)
	r := flood(srv.url, links, concurrency)
	peakSampled := sampled()
	hwm, err := statusKB(srv.pid, "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	cpuAfter, err := cpuTime(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	cpu := cpuAfter - cpuBefore
	// The kernel updates VmHWM lazily: a reading of VmRSS may be above it.
	peak := max(hwm, peakSampled) << 10
	srv.stop(t)
	endLoad := loadAverage()

	all := r.latencies()
	t.Logf("nexttoken serve: %d distinct links, %d at a time, each once (Accept-Encoding: %s), in %s; load average %s before, %s after",
		n, concurrency, loadAccept, r.elapsed.Round(time.Millisecond), startLoad, endLoad)
	t.Logf("  %.0f requests/s, %d errors, latency %s; %s received",
		float64(n)/r.elapsed.Seconds(), r.errors(), spread(all), megabytes(r.bytes))
	t.Logf("  the server's RSS %s before, peak %s (VmHWM %s, VmRSS read every 20 ms %s at most); its CPU time during the flood %s (%.2f cores)",
		megabytes(rssBefore<<10), megabytes(peak), megabytes(hwm<<10), megabytes(peakSampled<<10), cpu, cpu.Seconds()/r.elapsed.Seconds())
	for i := range linkKinds {
		k := &linkKinds[i]
		if s := r.byKind[k]; s.sent > 0 {
			slices.Sort(s.latencies)
			t.Logf("  %-16s %4d links, %d errors, latency %s", k.name, s.sent, s.errors, spread(s.latencies))
		}
	}
	t.Logf("summary: %d distinct links, %d concurrent: %d errors, p50 %s, p99 %s, max %s, %.0f requests/s, peak RSS %s, server CPU %s, load average %s → %s",
		n, concurrency, r.errors(), percentile(all, 50), percentile(all, 99), percentile(all, 100),
		float64(n)/r.elapsed.Seconds(), megabytes(peak), cpu, startLoad, endLoad)

	if r.errors() > 0 {
		for _, e := range r.firstErrors {
			t.Errorf("%s", e)
		}
		t.Errorf("%d errors of %d requests, %d of them links not sent in %s", r.errors(), n, r.unsent, floodTimeout)
	}
	if peak > maxServeRSS {
		t.Errorf("peak RSS %s, more than %s", megabytes(peak), megabytes(maxServeRSS))
	}
}

// floodResult is what flood saw.
type floodResult struct {
	elapsed     time.Duration
	byKind      map[*linkKind]*kindResult
	bytes       int64    // received, all bodies as sent
	unsent      int      // links not sent in floodTimeout
	firstErrors []string // the first few
}

// kindResult is what flood saw of one kind of link.
type kindResult struct {
	sent      int
	latencies []time.Duration // of the requests answered or failed
	errors    int             // with the links not sent
}

// latencies are all the requests' latencies, sorted.
func (r floodResult) latencies() []time.Duration {
	var all []time.Duration
	for _, s := range r.byKind {
		all = append(all, s.latencies...)
	}
	slices.Sort(all)
	return all
}

func (r floodResult) errors() int {
	n := 0
	for _, s := range r.byKind {
		n += s.errors
	}
	return n
}

// maxErrorsShown is how many errors a flood keeps to show.
const maxErrorsShown = 10

// flood GETs each link once from base, c at a time, as Chromium would ask
// (loadAccept), and times each request from its start to its body's last
// byte. What is not done in floodTimeout is an error.
func flood(base string, links []loadLink, c int) floodResult {
	ctx, cancel := context.WithTimeout(context.Background(), floodTimeout)
	defer cancel()
	client := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: c, DisableCompression: true},
		Timeout:   linkTimeout,
	}
	defer client.CloseIdleConnections()
	r := floodResult{byKind: map[*linkKind]*kindResult{}}
	for i := range linkKinds {
		r.byKind[&linkKinds[i]] = &kindResult{}
	}
	var mu sync.Mutex
	r.elapsed = inParallel(len(links), c, func(i int) {
		l := links[i]
		if ctx.Err() != nil {
			mu.Lock()
			defer mu.Unlock()
			r.byKind[l.kind].errors++
			r.unsent++
			return
		}
		begun := time.Now()
		n, err := getPage(ctx, client, base+l.path)
		took := time.Since(begun)
		mu.Lock()
		defer mu.Unlock()
		s := r.byKind[l.kind]
		s.sent++
		s.latencies = append(s.latencies, took)
		r.bytes += n
		if err != nil {
			s.errors++
			if len(r.firstErrors) < maxErrorsShown {
				r.firstErrors = append(r.firstErrors, fmt.Sprintf("%s link after %s: %.300v: %.200s", l.kind.name, took.Round(time.Millisecond), err, l.path))
			}
		}
	})
	return r
}

// getPage GETs a page and checks that it came whole: status 200, HTML, as
// long as its Content-Length says, and, gzipped, decompressing to a
// document that ends. It returns the bytes received.
func getPage(ctx context.Context, client *http.Client, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept-Encoding", loadAccept)
	res, err := client.Do(req)
	if err != nil {
		return 0, requestError(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	n := int64(len(body))
	switch {
	case err != nil:
		return n, requestError(err)
	case res.StatusCode != http.StatusOK:
		return n, fmt.Errorf("status %d: %.200q", res.StatusCode, body)
	case !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"):
		return n, fmt.Errorf("Content-Type %q", res.Header.Get("Content-Type"))
	case res.Header.Get("Content-Length") != strconv.Itoa(len(body)):
		return n, fmt.Errorf("Content-Length %q for %d bytes", res.Header.Get("Content-Length"), len(body))
	}
	if res.Header.Get("Content-Encoding") == "gzip" {
		if body, err = gunzip(body); err != nil {
			return n, fmt.Errorf("gzip: %v", err)
		}
	}
	if !bytes.Contains(body, []byte("</html>")) {
		return n, fmt.Errorf("a page that does not end: %d bytes", len(body))
	}
	return n, nil
}

// requestError says which failure err is: a timeout, or another.
func requestError(err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("timed out (after %s, or at the end of the flood's %s): %w", linkTimeout, floodTimeout, err)
	}
	return err
}

// spread writes sorted latencies' p50, p90, p99 and maximum.
func spread(sorted []time.Duration) string {
	return fmt.Sprintf("p50 %s, p90 %s, p99 %s, max %s",
		percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99), percentile(sorted, 100))
}

// sampleRSS reads the resident memory of process pid every interval until
// the function it returns is called, which returns the most it read, in
// KB.
func sampleRSS(pid int, interval time.Duration) (peakKB func() int64) {
	stop := make(chan struct{})
	done := make(chan int64)
	go func() {
		var peak int64
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if kb, err := statusKB(pid, "VmRSS"); err == nil {
				peak = max(peak, kb)
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		return <-done
	}
}

// cpuTime is the CPU time, user and system, that process pid has used so
// far, from /proc/PID/stat, which counts it in USER_HZ, 100 a second.
func cpuTime(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name, which ends with the last ")":
	// the state is field 3, utime 14 and stime 15.
	i := bytes.LastIndex(stat, []byte(") "))
	f := strings.Fields(string(stat[i+2:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, stat)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %q", pid, stat)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100), nil
}
