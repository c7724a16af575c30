package tracefile

import (
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
)

// CSVColumns are the columns every CSV file has, before one column for
// each setting that differs from sampler.DefaultSettings at some step:
// the step's number from 1 as the page labels it, the position and the
// token it read, the token chosen (tokenizer.Readable spells tokens, as
// the page does), whether it was forced by hand and the tokens whose
// logit was edited, its probability, log probability and rank in the
// step's softmax, the softmax's entropy in nats, and the draw u (empty
// for greedy decoding).
var CSVColumns = []string{"step", "position", "input_id", "input", "token_id", "token", "forced", "edited",
	"p", "log_p", "rank", "entropy_nats", "u"}

// WriteCSV writes the steps taken of a session as CSV (RFC 4180: CRLF
// line ends, fields quoted when they hold a comma, a quote or a line end),
// one row per step after a header of CSVColumns and the settings' names
// (a link's: mode, temperature, top_k, …, ignore_eos).
func WriteCSV(w io.Writer, spec session.Spec, t *session.Trace) error {
	return writeAll(CSVFile, w, spec, t)
}

// csvTrace writes a trace's CSV a row at a time.
type csvTrace struct {
	w        io.Writer
	t        *session.Trace
	settings []sampler.Settings // each step's
	columns  []settingColumn
	row      []string
	line     []byte
}

func newCSV(w io.Writer, spec session.Spec, t *session.Trace) *csvTrace {
	c := &csvTrace{w: w, t: t, settings: make([]sampler.Settings, len(t.Steps))}
	for i := range c.settings {
		c.settings[i] = spec.SamplerAt(i)
	}
	c.columns = settingColumns(c.settings)
	return c
}

func (c *csvTrace) header() error {
	header := slices.Clone(CSVColumns)
	for _, col := range c.columns {
		header = append(header, col.name)
	}
	return c.write(header)
}

func (c *csvTrace) step(i int) error {
	t, st := c.t, c.t.Steps[i]
	input := ""
	if st.Input >= 0 {
		input = tokenizer.Readable(contextPiece(t, st.Pos))
	}
	u := ""
	if d := st.Choice.Draw; d != nil {
		u = number(d.U)
	}
	edited := make([]string, len(st.Edited))
	for k, id := range st.Edited {
		edited[k] = strconv.Itoa(id)
	}
	c.row = append(c.row[:0], strconv.Itoa(i+1), strconv.Itoa(st.Pos), strconv.Itoa(st.Input), input,
		strconv.Itoa(st.Token), tokenizer.Readable(st.Piece), strconv.FormatBool(st.Forced), strings.Join(edited, " "),
		number(st.Prob), number(st.LogProb), strconv.Itoa(st.Rank), number(st.Entropy), u)
	for _, col := range c.columns {
		c.row = append(c.row, col.value(c.settings[i]))
	}
	return c.write(c.row)
}

// write writes a row: its fields separated by commas, each quoted, its
// quotes doubled, when it holds a comma, a quote or a line end, and CRLF
// after the last.
func (c *csvTrace) write(fields []string) error {
	c.line = c.line[:0]
	for i, f := range fields {
		if i > 0 {
			c.line = append(c.line, ',')
		}
		if !strings.ContainsAny(f, "\",\r\n") {
			c.line = append(c.line, f...)
			continue
		}
		c.line = append(c.line, '"')
		c.line = append(c.line, strings.ReplaceAll(f, `"`, `""`)...)
		c.line = append(c.line, '"')
	}
	c.line = append(c.line, '\r', '\n')
	_, err := c.w.Write(c.line)
	return err
}

// contextPiece is the text of the context's token at pos: the prompt's,
// then the steps' chosen tokens.
func contextPiece(t *session.Trace, pos int) string {
	if pos < len(t.Prompt) {
		return t.Prompt[pos].Piece
	}
	if i := pos - len(t.Prompt); i < len(t.Steps) {
		return t.Steps[i].Piece
	}
	return ""
}

func number(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// settingColumn is a setting's column: its name and its value in
// settings.
type settingColumn struct {
	name  string
	value func(sampler.Settings) string
}

// settingColumns are the columns of the settings that differ from
// sampler.DefaultSettings in any of settings, in the order of a link's.
func settingColumns(settings []sampler.Settings) []settingColumn {
	def := sampler.DefaultSettings()
	differs := func(f func(sampler.Settings) string) bool {
		return slices.ContainsFunc(settings, func(s sampler.Settings) bool { return f(s) != f(def) })
	}
	var columns []settingColumn
	add := func(name string, f func(sampler.Settings) string) {
		if differs(f) {
			columns = append(columns, settingColumn{name, f})
		}
	}
	add("mode", func(s sampler.Settings) string { return string(cmp.Or(s.Mode, sampler.Chain)) })
	for _, p := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		add(p.Name, func(s sampler.Settings) string { return strconv.FormatFloat(p.Get(s), 'f', -1, 64) })
	}
	add("sequence", func(s sampler.Settings) string { return s.Sequence })
	add("ignore_eos", func(s sampler.Settings) string { return strconv.FormatBool(s.IgnoreEOS) })
	return columns
}
