// Package tracefile writes a session's trace as a file: JSON, the schema
// of `nexttoken trace --json`, which the command line and the playground's
// export both write, and CSV, one row per step for a spreadsheet.
//
// Both read the compact trace (session.Trace) and the session's Spec, so a
// finished session is written without running anything again; the JSON
// writer also takes what only a running session can give, a step's full
// Detail and the Extra the model is asked for before the step.
//
// Numbers are the engine's own, unrounded. JSON cannot hold −Inf, +Inf or
// NaN, which are written as the strings "-Inf", "+Inf" and "NaN"; CSV
// writes them as Go's strconv does, -Inf, +Inf and NaN.
package tracefile
