package statusstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// maxBatch bounds the calls of Commit committed together.
const maxBatch = 128

// commitGroup lets the Commit calls that overlap in one process share a
// commit (group commit): each call queues its files, and whichever call
// takes the turn commits every queued call whose paths do not meet an
// earlier one's, then hands the turn on. One clone and one push serve
// them all, so a replica's apps never race each other for the branch,
// and only replicas race, each with one push at a time.
type commitGroup struct {
	turn  chan struct{}
	mu    sync.Mutex
	queue []*pendingCommit
	// lostAt is when a push of this process last lost a race to another
	// writer (contended).
	lostAt time.Time
}

// While other writers push to the branch, a process that pushes again as
// soon as each push lands leaves the others no gap: a replica whose
// fetch, commit and push take longer than the gap between the others'
// pushes loses every race, with a backoff after each, and its records
// wait (scenario 12: a replica's records stalled 18 s while the two
// others pushed twice a second). So, for contendedFor after one of its
// pushes lost a race, a process leaves pushGap after each push before the
// next; what is queued meanwhile goes out together.
const (
	contendedFor = 5 * time.Second
	pushGap      = 500 * time.Millisecond
)

// backoff returns the wait before retry attempt n (1, 2, …): growing to
// at most 500 ms, with jitter so that two writers that collided do not
// collide again. A push loses to another writer's that landed, not to a
// collision both lose, so a long wait only lets the others push again
// (the winners leave a gap instead: pushGap).
func backoff(n int) time.Duration {
	base := min(time.Duration(n)*50*time.Millisecond, 250*time.Millisecond)
	return base + rand.N(base)
}

// lost records that a push lost a race to another writer.
func (g *commitGroup) lost() {
	g.mu.Lock()
	g.lostAt = time.Now()
	g.mu.Unlock()
}

// contended reports whether a push lost a race within contendedFor.
func (g *commitGroup) contended() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.lostAt.IsZero() && time.Since(g.lostAt) < contendedFor
}

// pendingCommit is one Commit call waiting for its result.
type pendingCommit struct {
	files map[string][]byte
	msg   string
	done  chan commitResult
	// ctx is the call's context: its claims (internal/fence) must hold
	// when the commit is pushed.
	ctx context.Context
}

// commitResult is what Commit returns to one call.
type commitResult struct {
	hash string
	err  error
}

func newCommitGroup() commitGroup { return commitGroup{turn: make(chan struct{}, 1)} }

// commit queues files and waits for their commit, committing the queue
// itself when the turn is free. When the call that committed it was
// cancelled, a call whose own context is live queues again.
func (g *commitGroup) commit(ctx context.Context, b *Branch, files map[string][]byte, msg string) (string, error) {
	for {
		p := &pendingCommit{files: files, msg: msg, done: make(chan commitResult, 1), ctx: ctx}
		g.add(p)
		r, ok := g.wait(ctx, b, p)
		if !ok {
			return "", ctx.Err()
		}
		if ctx.Err() == nil && (errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded)) {
			continue
		}
		return r.hash, r.err
	}
}

// wait takes turns committing the queue until p has its result; it
// reports false when ctx ended while p was still queued (p is dropped).
func (g *commitGroup) wait(ctx context.Context, b *Branch, p *pendingCommit) (commitResult, bool) {
	for {
		select {
		case r := <-p.done:
			return r, true
		case <-ctx.Done():
			if g.remove(p) {
				return commitResult{}, false
			}
			return <-p.done, true // being committed: its committer ends it
		case g.turn <- struct{}{}:
			g.gather()
			if batch := g.take(); len(batch) > 0 {
				b.commitBatch(ctx, batch)
				if g.contended() {
					pause(ctx, pushGap)
				}
			}
			<-g.turn
		}
	}
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// A burst of calls started together (the late records of a pass, the
// apps of a wave finishing at once) would have its first call commit
// alone and the rest after it: a push more than the burst needs. So the
// turn's taker first waits while the queue still grows, gatherStep at a
// time and at most gatherMax; a lone call pays one gatherStep.
const (
	gatherStep = 2 * time.Millisecond
	gatherMax  = 50 * time.Millisecond
)

// gather waits, as above, for calls that are joining the queue.
func (g *commitGroup) gather() {
	deadline := time.Now().Add(gatherMax)
	for n := g.len(); n < maxBatch && time.Now().Before(deadline); {
		time.Sleep(gatherStep)
		m := g.len()
		if m == n {
			return
		}
		n = m
	}
}

func (g *commitGroup) len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

func (g *commitGroup) add(p *pendingCommit) {
	g.mu.Lock()
	g.queue = append(g.queue, p)
	g.mu.Unlock()
}

// remove drops p from the queue, reporting whether it was still there.
func (g *commitGroup) remove(p *pendingCommit) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, q := range g.queue {
		if q == p {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			return true
		}
	}
	return false
}

// take removes from the queue, in order, up to maxBatch calls whose
// paths meet no earlier taken call's; the others wait for the next turn.
func (g *commitGroup) take() []*pendingCommit { return g.absorb(nil) }

// absorb adds to batch, as take does, the queued calls whose paths meet
// none of batch's. A batch whose push lost a race to another replica
// takes in what was queued while it waited to retry, so that the retry
// pushes it too, rather than one more push after it.
func (g *commitGroup) absorb(batch []*pendingCommit) []*pendingCommit {
	g.mu.Lock()
	defer g.mu.Unlock()
	var rest []*pendingCommit
	paths := map[string]bool{}
	for _, p := range batch {
		for name := range p.files {
			paths[name] = true
		}
	}
	for _, p := range g.queue {
		if len(batch) == maxBatch || meets(paths, p.files) {
			rest = append(rest, p)
			continue
		}
		for name := range p.files {
			paths[name] = true
		}
		batch = append(batch, p)
	}
	g.queue = rest
	return batch
}

// meets reports whether files write a path of paths.
func meets(paths map[string]bool, files map[string][]byte) bool {
	for name := range files {
		if paths[name] {
			return true
		}
	}
	return false
}

// batchMessage is the commit message of parts: the one message, or a
// count and each message's first line, then the trailers all of them end
// with (the replica that wrote them).
func batchMessage(parts []*pendingCommit) string {
	if len(parts) == 1 {
		return parts[0].msg
	}
	var b strings.Builder
	fmt.Fprintf(&b, "roleout: %d status updates\n", len(parts))
	common := trailers(parts[0].msg)
	for _, p := range parts {
		first, _, _ := strings.Cut(p.msg, "\n")
		b.WriteString("\n" + first)
		if trailers(p.msg) != common {
			common = ""
		}
	}
	if common != "" {
		b.WriteString("\n\n" + common)
	}
	return b.String()
}

// trailers returns the trailer block of a commit message: its last
// paragraph after the first, when every line of it is "Token: value".
func trailers(msg string) string {
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return ""
	}
	block := msg[i+2:]
	for _, line := range strings.Split(block, "\n") {
		token, value, ok := strings.Cut(line, ": ")
		if !ok || token == "" || value == "" || strings.ContainsAny(token, " \t") {
			return ""
		}
	}
	return block
}
