package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"nexttoken/engine/transformer"
	"nexttoken/web/models"
)

// modelTrace is the part of trace --json that --recompute and --lens add,
// with the step's own top candidates to compare the lens with.
type modelTrace struct {
	Steps []struct {
		Pos int
		Top []struct {
			Token int
			Prob  float64
		}
		RecomputeMaxAbsDiff *float64                          `json:"recompute_max_abs_diff"`
		MultiplyAdds        *struct{ Cached, Recomputed int } `json:"multiply_adds"`
		Lens                []struct {
			Layer int
			Top   []struct {
				Token int
				P     float64
			}
		}
	}
}

func traceModel(t *testing.T, args ...string) modelTrace {
	t.Helper()
	code, out, errs := runCmd(append([]string{"trace", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var tr modelTrace
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return tr
}

// TestTraceRecompute checks that --recompute gives every step the largest
// difference between cached and recomputed logits, which is 0 (the same
// arithmetic), and the step's multiply-adds both ways; and that without
// it the keys are absent.
func TestTraceRecompute(t *testing.T) {
	for _, name := range []string{"toy", "stories260K"} {
		m, err := models.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		c := m.Checkpoint.Config
		const steps = 6
		tr := traceModel(t, "--model="+name, "--steps="+strconv.Itoa(steps), "--recompute")
		if len(tr.Steps) != steps {
			t.Fatalf("%s: %d steps, want %d", name, len(tr.Steps), steps)
		}
		for _, st := range tr.Steps {
			if st.RecomputeMaxAbsDiff == nil || *st.RecomputeMaxAbsDiff != 0 {
				t.Errorf("%s position %d: recompute_max_abs_diff %v, want 0", name, st.Pos, st.RecomputeMaxAbsDiff)
			}
			want := struct{ Cached, Recomputed int }{transformer.MultiplyAdds(c, st.Pos), transformer.RecomputeMultiplyAdds(c, st.Pos)}
			if st.MultiplyAdds == nil || *st.MultiplyAdds != want || st.Pos > 0 && want.Recomputed <= want.Cached {
				t.Errorf("%s position %d: multiply_adds %v, want %v", name, st.Pos, st.MultiplyAdds, want)
			}
		}
		for _, st := range traceModel(t, "--model="+name, "--steps=2").Steps {
			if st.RecomputeMaxAbsDiff != nil || st.MultiplyAdds != nil || st.Lens != nil {
				t.Errorf("%s: a trace without --recompute or --lens has their keys", name)
			}
		}
	}
}

// TestTraceLens checks that --lens gives every step a layer per layer of
// the model, from the first to the last, each with --top tokens, and that
// the last layer's are the step's own top candidates.
func TestTraceLens(t *testing.T) {
	for _, tc := range []struct {
		name string
		top  int
	}{{"toy", 3}, {"stories260K", 5}} {
		m, err := models.Load(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		tr := traceModel(t, "--model="+tc.name, "--steps=4", "--lens", "--top="+strconv.Itoa(tc.top))
		for _, st := range tr.Steps {
			if len(st.Lens) != m.Checkpoint.Config.Layers {
				t.Fatalf("%s position %d: %d lens layers, want %d", tc.name, st.Pos, len(st.Lens), m.Checkpoint.Config.Layers)
			}
			for l, layer := range st.Lens {
				if layer.Layer != l || len(layer.Top) != tc.top {
					t.Errorf("%s position %d: lens layer %d is numbered %d with %d tokens, want %d", tc.name, st.Pos, l, layer.Layer, len(layer.Top), tc.top)
				}
			}
			last := st.Lens[len(st.Lens)-1].Top
			if !slices.EqualFunc(last, st.Top, func(a struct {
				Token int
				P     float64
			}, b struct {
				Token int
				Prob  float64
			}) bool {
				return a.Token == b.Token && a.P == b.Prob
			}) {
				t.Errorf("%s position %d: the last layer's lens %v is not the step's top %v", tc.name, st.Pos, last, st.Top)
			}
		}
	}
}
