package play

import (
	"slices"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
)

// TestCompareChains checks the compare card's run, cut to what it shows,
// against the chains' whole outcomes: the tokens listed, their final
// probabilities and draws, where u lands, each stage's counts, and that
// both chains follow the session's top-k.
func TestCompareChains(t *testing.T) {
	logits := make([]float64, 12)
	for i := range logits {
		logits[i] = -0.4 * float64(i)
	}
	used := sampler.Settings{Mode: sampler.Chain, Temperature: 1, TopK: 10, Seed: 42}
	ask := CompareChoice{Open: true, Chains: DefaultChains, Draws: true}
	got := compareChains(ask, logits, nil, used, nil)
	var outs [2]*compare.Outcome
	for k, name := range ask.Chains {
		ch, err := compare.Preset(name, used.Seed)
		if err != nil {
			t.Fatal(err)
		}
		ch.Follow(used, func(string) bool { return true })
		out, err := compare.Run(ch, logits, nil)
		if err != nil {
			t.Fatal(err)
		}
		outs[k] = &out
	}
	if want := tableTokens(outs[0], outs[1]); !slices.Equal(got.Tokens, want) || len(want) != CompareRows {
		t.Fatalf("tokens %v, want %v", got.Tokens, want)
	}
	if got.U != compare.SameU(nil, used.Seed) {
		t.Errorf("u %v", got.U)
	}
	for k, out := range outs {
		run := got.Chains[k]
		draws := out.Draws(CompareDraws, used.Seed+uint64(k))
		for i, id := range got.Tokens {
			if run.Final[i] != out.Final[id] || run.Drawn[i] != draws[id] {
				t.Errorf("chain %d, token %d: p %v drawn %d, want %v and %d", k, id, run.Final[i], run.Drawn[i], out.Final[id], draws[id])
			}
		}
		if landed := out.Land(got.U); run.Landed != landed || run.P != out.Final[landed] {
			t.Errorf("chain %d: u lands on %d at p %v, want %d at %v", k, run.Landed, run.P, landed, out.Final[landed])
		}
		if len(run.Stages) != len(out.Stages) {
			t.Fatalf("chain %d: %d stages, want %d", k, len(run.Stages), len(out.Stages))
		}
		for j, st := range out.Stages {
			if s := run.Stages[j]; s.Name != st.Name || s.Kept != len(st.Kept) || s.Removed != len(st.Removed) || s.RemovedMass != st.RemovedMass {
				t.Errorf("chain %d stage %d: %+v, want %s with %d kept, %d removed", k, j, s, st.Name, len(st.Kept), len(st.Removed))
			}
		}
		if out.Final[10] != 0 || out.Final[11] != 0 || draws[10]+draws[11] != 0 {
			t.Errorf("chain %d: top-k 10 leaves tokens 10 and 11 drawable", k)
		}
	}
	// A chain that cannot run says why, and the card lists nothing.
	ask.Chains[1] = "zz"
	got = compareChains(ask, logits, nil, used, nil)
	if got.Chains[1].Err == nil || got.Tokens != nil || got.Chains[0].Err != nil {
		t.Errorf("with a chain that cannot run: %+v", got)
	}
}
