package tracefile_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tracefile"
	"nexttoken/web/models"
)

// open opens a session of an embedded model that takes its steps.
func open(t *testing.T, model, prompt string, set sampler.Settings, steps int) *session.Session {
	t.Helper()
	s, err := session.New(session.Spec{Model: model, Prompt: prompt, Sampler: set, Steps: steps}, models.Load)
	if err != nil {
		t.Fatalf("%s after %q: %v", model, prompt, err)
	}
	return s
}

func writeCSV(t *testing.T, spec session.Spec, tr *session.Trace) (string, [][]string) {
	t.Helper()
	var b bytes.Buffer
	if err := tracefile.WriteCSV(&b, spec, tr); err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(strings.NewReader(b.String()))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not read back: %v\n%s", err, b.String())
	}
	return b.String(), rows
}

// TestCSVQuoting writes steps whose tokens hold what CSV must quote or a
// spreadsheet cannot show: each field reads back as the token spelled as
// the page spells it, and the file is RFC 4180's.
func TestCSVQuoting(t *testing.T) {
	pieces := []struct{ piece, field string }{
		{"a,b", "a,b"},
		{`say "hi"`, `say␣"hi"`},
		{"line\nend", "line↵end"},
		{"\r", "<0x0D>"},
		{"\xe2\x80", "<0xE2><0x80>"},
		{"", "∅"},
	}
	tr := &session.Trace{Prompt: []session.Token{{ID: 9, Piece: "x,\"y\""}}}
	for i, p := range pieces {
		tr.Steps = append(tr.Steps, session.Step{Pos: i, Input: 9, Token: i, Piece: p.piece, Prob: 0.5, LogProb: math.Log(0.5), Rank: 1})
		if i > 0 {
			tr.Steps[i].Input = i - 1
		}
	}
	tr.Steps[0].Forced, tr.Steps[0].Prob, tr.Steps[0].LogProb = true, 0, math.Inf(-1)
	text, rows := writeCSV(t, session.Spec{Model: "m", Sampler: sampler.DefaultSettings()}, tr)
	if len(rows) != 1+len(pieces) {
		t.Fatalf("%d rows, want a header and %d steps:\n%s", len(rows), len(pieces), text)
	}
	if got := strings.Join(rows[0], ","); got != strings.Join(tracefile.CSVColumns, ",") {
		t.Errorf("header %s, want the columns alone (default settings)", got)
	}
	col := func(name string) int {
		for i, c := range rows[0] {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	for i, p := range pieces {
		row := rows[i+1]
		if row[col("token")] != p.field {
			t.Errorf("step %d: token %q, want %q", i+1, row[col("token")], p.field)
		}
		if row[col("step")] != strconv.Itoa(i+1) || row[col("token_id")] != strconv.Itoa(i) {
			t.Errorf("step %d: row %q", i+1, row)
		}
	}
	if in := rows[1][col("input")]; in != `x,"y"` {
		t.Errorf("step 1's input %q, want the prompt's token", in)
	}
	if in := rows[2][col("input")]; in != "a,b" {
		t.Errorf("step 2's input %q, want step 1's token", in)
	}
	if f, lp := rows[1][col("forced")], rows[1][col("log_p")]; f != "true" || lp != "-Inf" {
		t.Errorf("forced step: forced %s, log_p %s", f, lp)
	}
	for _, want := range []string{"step,position,", "\r\n1,0,9,", ",\"a,b\",", `"x,""y""",`, `"say␣""hi""",`} {
		if !strings.Contains(text, want) {
			t.Errorf("the CSV lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "\n") != strings.Count(text, "\r\n") {
		t.Errorf("a line ends without CR:\n%q", text)
	}
}

// TestCSVSession writes a session of the toy model whose settings change
// on the way: one row per step, its numbers the trace's, and a column for
// each setting that differs from the defaults at some step, with each
// step's value.
func TestCSVSession(t *testing.T) {
	set := sampler.DefaultSettings()
	set.Temperature, set.TopP, set.Seed = 1, 0.9, 7
	s := open(t, "toy", "The cat", set, 2)
	set.Temperature = 0.5
	if err := s.SetSampler(set); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	tr := s.Trace()
	_, rows := writeCSV(t, s.Spec(), tr)
	if len(rows) != 1+len(tr.Steps) {
		t.Fatalf("%d rows for %d steps", len(rows), len(tr.Steps))
	}
	header := strings.Join(rows[0], ",")
	if want := strings.Join(tracefile.CSVColumns, ",") + ",temperature,top_p,seed"; header != want {
		t.Errorf("header %s, want %s", header, want)
	}
	for i, st := range tr.Steps {
		row := rows[i+1]
		wantTemp := "1"
		if i >= 2 {
			wantTemp = "0.5"
		}
		u := strconv.FormatFloat(st.Choice.Draw.U, 'g', -1, 64)
		want := []string{strconv.Itoa(i + 1), strconv.Itoa(st.Pos), strconv.Itoa(st.Input)}
		if got := row[:3]; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("step %d: %q, want %q", i+1, got, want)
		}
		p, _ := strconv.ParseFloat(row[8], 64)
		if p != st.Prob || row[12] != u || row[13] != wantTemp || row[14] != "0.9" || row[15] != "7" {
			t.Errorf("step %d: row %q; p %v, u %s, temperature %s", i+1, row, st.Prob, u, wantTemp)
		}
	}
}

// TestJSONSession checks that WriteJSON, the whole trace at once, writes
// what the step-by-step writer writes as a session runs, and that it is
// JSON.
func TestJSONSession(t *testing.T) {
	set := sampler.DefaultSettings()
	set.Temperature, set.Seed = 1, 3
	s := open(t, "toy", "The cat", set, 0)
	var live bytes.Buffer
	j := tracefile.JSON{W: &live}
	if err := j.Start(s.Spec(), s.Trace()); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if err := j.Step(s.Trace(), i, nil, tracefile.Extra{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.End(s.Trace()); err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	if err := tracefile.WriteJSON(&whole, s.Spec(), s.Trace()); err != nil {
		t.Fatal(err)
	}
	if whole.String() != live.String() {
		t.Errorf("WriteJSON:\n%s\nstep by step:\n%s", whole.String(), live.String())
	}
	var v struct {
		Steps []struct{ Token int }
		Text  string
	}
	if err := json.Unmarshal(whole.Bytes(), &v); err != nil || len(v.Steps) != 4 || v.Text != s.Trace().Text {
		t.Errorf("WriteJSON gives %d steps, text %q (%v)", len(v.Steps), v.Text, err)
	}
}

// TestWriterBatches writes a trace in batches of every size: the bytes
// are those written at once.
func TestWriterBatches(t *testing.T) {
	set := sampler.DefaultSettings()
	set.Temperature, set.Seed = 1, 5
	s := open(t, "toy", "The", set, 5)
	for _, f := range tracefile.Formats {
		var whole bytes.Buffer
		write := tracefile.WriteJSON
		if f == tracefile.CSVFile {
			write = tracefile.WriteCSV
		}
		if err := write(&whole, s.Spec(), s.Trace()); err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 6; n++ {
			var b bytes.Buffer
			w, err := tracefile.NewWriter(f, &b, s.Spec(), s.Trace())
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			for done := false; !done; calls++ {
				if done, err = w.Write(n); err != nil {
					t.Fatal(err)
				}
			}
			if again, err := w.Write(n); !again || err != nil {
				t.Errorf("%s: Write after the end: %v, %v", f, again, err)
			}
			if b.String() != whole.String() || calls != max(1, (5+n-1)/n) {
				t.Errorf("%s in batches of %d, %d calls:\n%s\nat once:\n%s", f, n, calls, b.String(), whole.String())
			}
		}
	}
	if _, err := tracefile.NewWriter("xml", io.Discard, s.Spec(), s.Trace()); err == nil {
		t.Error("NewWriter takes format xml")
	}
}
