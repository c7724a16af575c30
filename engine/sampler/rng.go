package sampler

// RNG is run.c's random number generator, xorshift64*: a Marsaglia
// xorshift of the state (shifts 12, 25, 27) whose output is scrambled by a
// multiplication. State is exported so that a session can save and restore
// it; it must not be 0, which xorshift maps to itself.
type RNG struct{ State uint64 }

// NewRNG returns a generator whose state is seed, as run.c's build_sampler.
func NewRNG(seed uint64) RNG { return RNG{State: seed} }

// Uint32 advances the state and returns its top 32 bits after the
// xorshift* multiplication, as run.c's random_u32.
func (r *RNG) Uint32() uint32 {
	r.State ^= r.State >> 12
	r.State ^= r.State << 25
	r.State ^= r.State >> 27
	return uint32((r.State * 0x2545F4914F6CDD1D) >> 32)
}

// Float32 returns a uniform number in [0, 1) with 24 random bits, as run.c's
// random_f32. The division by 2²⁴ is exact.
func (r *RNG) Float32() float32 {
	return float32(r.Uint32()>>8) / (1 << 24)
}
