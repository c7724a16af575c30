// Package workers splits a loop over rows among a fixed set of goroutines
// that live as long as the program: a Pool of n threads is the caller and
// n−1 goroutines. Between Splits a goroutine spins a while on the pool's
// state, then sleeps on a channel until the next Split wakes it.
//
// A Split cuts the rows into a chunk a thread (SplitIn into more), wakes
// the goroutines that sleep, takes chunks itself until none is left and
// spins until the others' are done. Spinning keeps the goroutines running on processors
// of their own through a decode step's products: one woken from a
// channel waits behind the waker on the waker's processor, and the caller
// then did every chunk itself (a second thread added nothing). A
// goroutine the operating system has not run yet (on a busy machine)
// leaves its chunk to the others instead of holding them up, so a Split
// takes about as long as one thread's loop at worst. Smaller chunks
// (SplitIn) share the rows more evenly when a thread starts late, for a
// Job that pays no cost a chunk (package transformer's products quantize
// their vector once a thread). The split allocates nothing, so a decode
// step that splits every product stays allocation-free.
//
// One Split runs at a time: the caller holds the lock its Pool's user
// keeps (a Pool does not lock).
package workers

import (
	"runtime"
	"sync/atomic"
)

// A Job does rows from … to−1 of its work on thread thread (0 is the
// caller's; each of the others is one goroutine's): chunks run at once,
// each thread's one at a time, so that a Job may keep scratch space a
// thread.
type Job interface{ Rows(thread, from, to int) }

// Pool is a fixed set of threads to split rows among.
type Pool struct {
	wake []chan struct{} // one a goroutine
	// state is the current Split's epoch (bits 40 and up), number of
	// chunks (bits 20–39) and next chunk to take (bits 0–19): a thread
	// takes a chunk by adding one, if the epoch it read is still the
	// current one and chunks are left.
	state atomic.Uint64
	done  atomic.Int64 // chunks of the current Split done

	// The current Split's, written before state publishes its epoch and
	// read only by a thread that took one of its chunks.
	job         Job
	rows, chunk int
}

const (
	nextBits  = 20
	epochBits = 2 * nextBits
	fieldMask = 1<<nextBits - 1
)

// New starts the n−1 goroutines of a pool of n threads (n ≥ 1).
func New(n int) *Pool {
	p := &Pool{}
	for thread := 1; thread < n; thread++ {
		c := make(chan struct{}, 1)
		p.wake = append(p.wake, c)
		go func() {
			for {
				epoch := p.state.Load() >> epochBits
				p.take(thread)
				p.wait(c, epoch)
			}
		}()
	}
	return p
}

// spins is how many times a thread looks for what it waits on before it
// gives way: a goroutine for the next Split, the caller for the others'
// chunks. A decode step's products follow one another closer than that.
const spins = 1 << 18

// wait returns once a Split later than epoch has begun: at once if one has,
// after spinning if one begins soon, or when woken on c.
func (p *Pool) wait(c chan struct{}, epoch uint64) {
	for range spins {
		if p.state.Load()>>epochBits != epoch {
			return
		}
	}
	<-c
}

// Threads is the number of threads a Split uses at most.
func (p *Pool) Threads() int { return len(p.wake) + 1 }

// Split does job's rows 0 … rows−1 in chunks, one a thread, each but the
// last a multiple of align rows, and returns when every chunk is done.
func (p *Pool) Split(job Job, rows, align int) { p.SplitIn(job, rows, align, p.Threads()) }

// SplitIn is Split in at most chunks chunks (at least one): more chunks
// than threads let a thread that starts late leave the others less to
// wait for, one chunk at a time.
func (p *Pool) SplitIn(job Job, rows, align, chunks int) {
	if rows <= 0 {
		return
	}
	chunks = min(max(chunks, 1), fieldMask)
	chunk := (rows + chunks - 1) / chunks
	chunk = (chunk + align - 1) / align * align
	chunks = (rows + chunk - 1) / chunk
	p.job, p.rows, p.chunk = job, rows, chunk
	p.done.Store(0)
	epoch := p.state.Load()>>epochBits + 1
	p.state.Store(epoch<<epochBits | uint64(chunks)<<nextBits)
	for _, c := range p.wake {
		select {
		case c <- struct{}{}:
		default: // still awake from an earlier Split: it will look
		}
	}
	if !p.take(0) {
		for i := 0; p.done.Load() < int64(chunks); i++ {
			if i >= spins {
				runtime.Gosched()
			}
		}
	}
	p.job = nil
}

// take does chunks of the current Split on thread until none is left and
// reports whether it did the last one to finish. The chunk it takes is the current Split's, whose job
// and sizes stay put until that chunk is done.
func (p *Pool) take(thread int) (last bool) {
	s := p.state.Load()
	for {
		next, chunks := int(s&fieldMask), int(s>>nextBits&fieldMask)
		if next >= chunks {
			return last
		}
		if !p.state.CompareAndSwap(s, s+1) {
			s = p.state.Load() // another thread took it, or a later Split began
			continue
		}
		s++
		from := next * p.chunk
		p.job.Rows(thread, from, min(from+p.chunk, p.rows))
		if p.done.Add(1) == int64(chunks) {
			last = true
		}
	}
}
