package workers

import (
	"sync/atomic"
	"testing"
)

// counts counts how often each row is done, and the chunks each thread did.
type counts struct {
	rows    []atomic.Int32
	threads []atomic.Int32
}

func (c *counts) Rows(thread, from, to int) {
	for i := from; i < to; i++ {
		c.rows[i].Add(1)
	}
	c.threads[thread].Add(1)
}

// TestSplitDoesEveryRowOnce splits row counts below, at and above the
// threads and the alignment among pools of 1 to 4 threads.
func TestSplitDoesEveryRowOnce(t *testing.T) {
	for threads := 1; threads <= 4; threads++ {
		p := New(threads)
		for _, align := range []int{1, 4, 16} {
			for rows := 0; rows <= 70; rows++ {
				c := &counts{make([]atomic.Int32, rows), make([]atomic.Int32, threads)}
				p.Split(c, rows, align)
				for i := range c.rows {
					if n := c.rows[i].Load(); n != 1 {
						t.Fatalf("%d threads, %d rows aligned to %d: row %d done %d times", threads, rows, align, i, n)
					}
				}
				for _, chunks := range []int{0, 1, 3, 4 * threads, 100} {
					c := &counts{make([]atomic.Int32, rows), make([]atomic.Int32, threads)}
					p.SplitIn(c, rows, align, chunks)
					for i := range c.rows {
						if n := c.rows[i].Load(); n != 1 {
							t.Fatalf("%d threads, %d rows aligned to %d in %d chunks: row %d done %d times", threads, rows, align, chunks, i, n)
						}
					}
				}
				if rows > 0 && c.threads[0].Load() == 0 && threads == 1 {
					t.Fatalf("1 thread, %d rows: the caller did nothing", rows)
				}
			}
		}
	}
}

// noop is a job that does nothing, to time a Split's own cost.
type noop struct{}

func (noop) Rows(int, int, int) {}

// TestSplitAllocatesNothing checks that a Split allocates nothing.
func TestSplitAllocatesNothing(t *testing.T) {
	p := New(3)
	var job Job = noop{}
	if a := testing.AllocsPerRun(100, func() { p.Split(job, 1000, 16) }); a != 0 {
		t.Errorf("a Split allocates %v times", a)
	}
}

// BenchmarkSplit times a Split of nothing among two threads: the cost of
// waking a goroutine and waiting for it.
func BenchmarkSplit(b *testing.B) {
	p := New(2)
	var job Job = noop{}
	for b.Loop() {
		p.Split(job, 1000, 16)
	}
}
