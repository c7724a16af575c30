//go:build !js

package main

import (
	"encoding/csv"
	"errors"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"nexttoken/engine/tracefile"
	"nexttoken/wasm/play"
	"nexttoken/web/models"
)

// exportLink is a session as a page link and as trace's flags. It samples
// in run.c mode, whose products sum every row in run.c's order in the
// browser and natively alike, so that the logits have the same bits in
// both; the chain's float32 products natively go through gonum's SGEMV,
// whose order is its own.
var exportLink = struct {
	query string
	args  []string
}{
	"model=stories260K&prompt=" + url.QueryEscape("Once upon") + "&steps=6&sampler=runc&temperature=1&top_p=0.9&seed=5",
	[]string{"trace", "--model=stories260K", "--prompt=Once upon", "--steps=6", "--sampler=runc", "--temperature=1", "--top-p=0.9", "--seed=5"},
}

// savingHost is a page whose controller answers at once and whose files
// saved are kept.
type savingHost struct{ saved map[string][]byte }

func (h *savingHost) Changed()                               {}
func (h *savingHost) After(time.Duration, func()) func()     { return func() {} }
func (h *savingHost) Frame(f func())                         { f() }
func (h *savingHost) Address(string)                         {}
func (h *savingHost) Now() time.Time                         { return time.Time{} }
func (h *savingHost) Missing(error, func()) bool             { return false }
func (h *savingHost) Save(name, _ string, data []byte) error { h.saved[name] = data; return nil }

// TestPageExportIsTrace opens a link as the page does and exports its
// trace with the page's own action: the JSON is what trace --json prints
// for the same session, and the CSV has a row per step.
func TestPageExportIsTrace(t *testing.T) {
	h := &savingHost{saved: map[string][]byte{}}
	ctl := play.New(&play.Local{Load: models.Load}, h, "/")
	ctl.OpenAddress(exportLink.query, "")
	if s := ctl.Snapshot(); s.Session == nil || s.Session.Steps() != 6 {
		t.Fatalf("the link did not open 6 steps: %s", s.Notice)
	}
	ctl.ExportTrace(tracefile.JSONFile)
	ctl.ExportTrace(tracefile.CSVFile)
	code, out, errs := runCmd(append(exportLink.args, "--json")...)
	if code != 0 {
		t.Fatalf("trace: %s", errs)
	}
	if got := string(h.saved["nexttoken-stories260K-6-steps.json"]); got != out {
		t.Errorf("the page's JSON:\n%s\ntrace --json:\n%s", got, out)
	}
	rows, err := csv.NewReader(strings.NewReader(string(h.saved["nexttoken-stories260K-6-steps.csv"]))).ReadAll()
	if err != nil || len(rows) != 7 {
		t.Errorf("the page's CSV: %d rows, want a header and 6 (%v)", len(rows), err)
	}
}

// TestExportDownloads clicks the share panel's downloads: the JSON file
// the browser saves is what trace --json prints for the page's link, up
// to the last bits of the probabilities (sameTrace), and the CSV has a
// row per step.
func TestExportDownloads(t *testing.T) {
	tab := openPage(t, "/?"+exportLink.query)
	dir := t.TempDir()
	allow := true
	if _, err := chromedp.Call(tab, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &allow}); err != nil {
		t.Fatal(err)
	}
	click(tab, "#share summary")
	code, want, errs := runCmd(append(exportLink.args, "--json")...)
	if code != 0 {
		t.Fatalf("trace: %s", errs)
	}
	for _, f := range tracefile.Formats {
		name := "nexttoken-stories260K-6-steps." + string(f)
		click(tab, "#export-"+string(f))
		waitFor(tab, `document.getElementById('export-status')?.textContent.startsWith(`+jsString("Saved "+name)+`)`)
		got := downloaded(t, filepath.Join(dir, name))
		switch f {
		case tracefile.JSONFile:
			sameTrace(t, string(got), want)
		case tracefile.CSVFile:
			rows, err := csv.NewReader(strings.NewReader(string(got))).ReadAll()
			if err != nil || len(rows) != 7 || rows[6][0] != "6" {
				t.Errorf("downloaded %s: %d rows, want a header and 6 (%v)", name, len(rows), err)
			}
		}
	}
}

// downloaded is the file at path once the browser has saved it whole: it
// writes elsewhere and renames the file when done.
func downloaded(t *testing.T, path string) []byte {
	t.Helper()
	for end := time.Now().Add(actionTimeout); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		data, err := os.ReadFile(path)
		if err == nil {
			return data
		}
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	t.Fatalf("no %s after %v", path, actionTimeout)
	return nil
}

// number is a JSON number.
var number = regexp.MustCompile(`-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// sameTrace checks that the trace the page wrote, got, is the command
// line's, want, character for character but for the numbers, which may
// differ in their last bits: the browser's float64 softmax runs Go's
// portable math.Exp, amd64's its assembly, and the two round a few
// results differently. The logits, every token and every count are the
// same; the numbers that differ are logged.
func sameTrace(t *testing.T, got, want string) {
	t.Helper()
	if a, b := number.ReplaceAllString(got, "N"), number.ReplaceAllString(want, "N"); a != b {
		t.Fatalf("the page's trace differs from trace --json beyond its numbers:\n%s\ntrace --json:\n%s", got, want)
	}
	a, b := number.FindAllString(got, -1), number.FindAllString(want, -1)
	differ, most := 0, 0.0
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		x, errx := strconv.ParseFloat(a[i], 64)
		y, erry := strconv.ParseFloat(b[i], 64)
		rel := math.Abs(x-y) / math.Max(math.Abs(x), math.Abs(y))
		if errx != nil || erry != nil || !strings.ContainsAny(a[i]+b[i], ".eE") || rel > 1e-13 {
			t.Errorf("number %d: the page wrote %s, trace --json %s", i, a[i], b[i])
		}
		differ, most = differ+1, math.Max(most, rel)
	}
	t.Logf("%d of %d numbers differ in their last bits, by at most %.1g relative", differ, len(a), most)
}

// TestExportLongSession exports a session of 500 steps (the end of text
// ignored, so that it runs them all): the page says it is writing, writes
// over several animation frames, and logs the longest time between two
// frames while it does and the whole export's time. The batches are
// bounded in time, not in steps, so a longer session takes more frames,
// not longer ones.
func TestExportLongSession(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=500&temperature=1&seed=2&ignore_eos=1")
	click(tab, "#share summary")
	click(tab, "#export-csv") // brings the buttons into view, drawn
	waitFor(tab, `document.getElementById('export-status')?.textContent.startsWith('Saved nexttoken-stories260K-500-steps.csv')`)
	type seen struct {
		Writing bool      // the status said the export was under way
		Gaps    []float64 // between the animation frames, ms
		Total   float64   // from the click to the status saying it saved, ms
	}
	evaluate[bool](tab, `(() => {
		const status = document.getElementById('export-status');
		const seen = window.exportSeen = {writing: false, gaps: [], start: performance.now()};
		new MutationObserver(() => {
			const text = status.textContent;
			if (text.startsWith('Writing nexttoken-stories260K-500-steps.json, 500 steps')) seen.writing = true;
			if (text.startsWith('Saved ')) seen.total = performance.now() - seen.start;
		}).observe(status, {childList: true, characterData: true, subtree: true});
		let last = seen.start;
		const frame = now => {
			seen.gaps.push(now - last);
			last = now;
			if (seen.total === undefined) requestAnimationFrame(frame);
		};
		requestAnimationFrame(frame);
		document.getElementById('export-json').click();
		return true;
	})()`)
	waitFor(tab, `window.exportSeen.total !== undefined`)
	s := evaluate[seen](tab, `window.exportSeen`)
	if !s.Writing {
		t.Error("the status never said the export was under way")
	}
	if len(s.Gaps) < 2 {
		t.Errorf("the export of 500 steps took %d frames, want it spread over several", len(s.Gaps))
	}
	t.Logf("500 steps exported as JSON over %d frames in %.0f ms, the longest time between two frames %.0f ms", len(s.Gaps), s.Total, slices.Max(s.Gaps))
}
