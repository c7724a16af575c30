//go:build !js

package main

// The timing tests (make timing, docs/timing.md) measure the page: they
// are measurements, not tests, and skip unless NEXTTOKEN_TIMING is set.
// Each page measurement runs on every build of timingBuilds: the tree's
// own ("now", served by the harness) and, when make timing BASELINE=<rev>
// serves an earlier build at NEXTTOKEN_BASELINE_URL, that one ("before"),
// in alternating rounds in the same Chromium, so that the shared machine's
// load falls on both alike. A figures collects the rounds and logs one
// line a figure: each build's median and range and, with two builds,
// their ratio now/before. Nothing is asserted about the times.

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A build is a build of the playground that the timing tests measure.
type build struct {
	name string // "now" or "before"; empty for the other browser tests
	url  string // where it is served, without a trailing slash
}

// prefix is what a log line about b's pages starts with.
func (b build) prefix() string {
	if b.name == "" {
		return ""
	}
	return b.name + ": "
}

// needTiming skips t unless make timing runs it (NEXTTOKEN_TIMING set)
// and NEXTTOKEN_TIMING_ONLY selects one of names (timingSelected).
func needTiming(t *testing.T, names ...string) {
	t.Helper()
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	if !slices.ContainsFunc(names, func(name string) bool { return timingSelected(t, name) }) {
		t.Skip("NEXTTOKEN_TIMING_ONLY selects none of its measurements")
	}
}

// timingSelected reports whether NEXTTOKEN_TIMING_ONLY, a regular
// expression, matches the measurement name or t's name; unset, it selects
// every measurement.
func timingSelected(t *testing.T, name string) bool {
	t.Helper()
	only := os.Getenv("NEXTTOKEN_TIMING_ONLY")
	if only == "" {
		return true
	}
	re, err := regexp.Compile(only)
	if err != nil {
		t.Fatalf("NEXTTOKEN_TIMING_ONLY: %v", err)
	}
	return re.MatchString(t.Name()) || re.MatchString(name)
}

// timingRounds is NEXTTOKEN_TIMING_ROUNDS, or otherwise n.
func timingRounds(n int) int {
	if r, err := strconv.Atoi(os.Getenv("NEXTTOKEN_TIMING_ROUNDS")); err == nil && r > 0 {
		return r
	}
	return n
}

// timingBuilds are the builds a page measurement runs on, in the order of
// each round: the baseline first, when there is one.
func timingBuilds(t *testing.T) []build {
	t.Helper()
	now := build{"now", needBrowser(t).url}
	if base := strings.TrimSuffix(os.Getenv("NEXTTOKEN_BASELINE_URL"), "/"); base != "" {
		return []build{{"before", base}, now}
	}
	return []build{now}
}

// figures collects the values of a test's figures, by build.
type figures struct {
	t      *testing.T
	builds []build
	names  []string                        // in the order of their first value
	units  map[string]string               // by figure
	values map[string]map[string][]float64 // by figure and build
	load   string                          // the load average at the start
}

func newFigures(t *testing.T, builds []build) *figures {
	return &figures{t: t, builds: builds, units: map[string]string{},
		values: map[string]map[string][]float64{}, load: loadAverage()}
}

// add records a value of figure name, in unit, on build b.
func (f *figures) add(name, unit string, b build, v float64) {
	if f.values[name] == nil {
		f.names = append(f.names, name)
		f.units[name] = unit
		f.values[name] = map[string][]float64{}
	}
	f.values[name][b.name] = append(f.values[name][b.name], v)
}

// report logs a line a figure, and the load average at the start and now.
func (f *figures) report() {
	f.t.Helper()
	for _, name := range f.names {
		f.t.Log(f.line(name))
	}
	f.t.Logf("load average (1, 5, 15 min) at the start %s, at the end %s", f.load, loadAverage())
}

// line is "name: before median X unit (min–max), now median Y unit
// (min–max), now/before R× (N rounds each)", or only now's.
func (f *figures) line(name string) string {
	unit := f.units[name]
	if unit != "×" {
		unit = " " + unit
	}
	var parts []string
	medians := map[string]float64{}
	n := 0
	for _, b := range f.builds {
		v := slices.Sorted(slices.Values(f.values[name][b.name]))
		if len(v) == 0 {
			parts = append(parts, b.name+" no value")
			continue
		}
		medians[b.name] = median(v)
		n = max(n, len(v))
		parts = append(parts, fmt.Sprintf("%s median %s%s (%s–%s)", b.name, figure(medians[b.name]), unit, figure(v[0]), figure(v[len(v)-1])))
	}
	before, hasBefore := medians["before"]
	now, hasNow := medians["now"]
	if hasBefore && hasNow && before != 0 {
		parts = append(parts, fmt.Sprintf("now/before %.2f×", now/before))
	}
	rounds := "1 round"
	if n != 1 {
		rounds = strconv.Itoa(n) + " rounds"
	}
	if len(f.builds) > 1 {
		rounds += " each"
	}
	return fmt.Sprintf("%s: %s (%s)", name, strings.Join(parts, ", "), rounds)
}

// median is the median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// figure is v with three significant digits or more, no exponent; a
// whole number as it is.
func figure(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100 || v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes, as
// uptime prints it, or why it is not known.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (no /proc/loadavg)"
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return "unknown"
	}
	return strings.Join(fields[:3], ", ")
}

// TestFigures checks the figures' lines, with and without a baseline.
func TestFigures(t *testing.T) {
	now, before := build{"now", ""}, build{"before", ""}
	f := newFigures(t, []build{before, now})
	for _, v := range []float64{10, 30, 20, 40} {
		f.add("step → DOM", "ms", before, v)
		f.add("step → DOM", "ms", now, v/2)
	}
	f.add("Run", "tok/s", now, 250)
	f.add("page ÷ embed", "×", before, 0.5)
	f.add("page ÷ embed", "×", now, 0.625)
	for name, want := range map[string]string{
		"step → DOM":   "step → DOM: before median 25 ms (10–40), now median 12.5 ms (5–20), now/before 0.50× (4 rounds each)",
		"Run":          "Run: before no value, now median 250 tok/s (250–250) (1 round each)",
		"page ÷ embed": "page ÷ embed: before median 0.50× (0.50–0.50), now median 0.62× (0.62–0.62), now/before 1.25× (1 round each)",
	} {
		if got := f.line(name); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	f = newFigures(t, []build{now})
	f.add("first Step", "ms", now, 31.26)
	if got, want := f.line("first Step"), "first Step: now median 31.3 ms (31.3–31.3) (1 round)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
