package agent

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/roleout/roleout/sources"
)

// previewQueue is what the agent keeps of pull-request heads between
// polls: when it first saw each head at its commit, who wrote the last
// commit of each ref it fetched, and which heads still wait for a
// preview. It orders the waiting heads (order) and hands the heads a
// poll asks for to the preview worker (Run).
type previewQueue struct {
	mu sync.Mutex
	// seen is, by ref, the commit the ref was last listed at and when:
	// a sequence number that grows with every head that appears or
	// moves, so a larger one is newer.
	seen map[string]seenHead
	seq  uint64
	// authors is, by ref, the author of the last commit of it that a
	// preview fetched (sources.Snapshot.Author).
	authors map[string]string
	// waiting is the heads left waiting by the last round, in order.
	waiting []sources.Head
	// extra is what the last poll asked to preview besides the pull
	// requests (a refused head of the followed ref), and kick wakes the
	// worker.
	extra []sources.Head
	kick  chan struct{}
	// yield is how previews give way to the followed ref's renders.
	yield yieldGate
}

// seenHead is when a ref was first listed at commit.
type seenHead struct {
	commit string
	seq    uint64
}

func newPreviewQueue() *previewQueue {
	return &previewQueue{seen: map[string]seenHead{}, authors: map[string]string{}, kick: make(chan struct{}, 1)}
}

// observe records the heads of one listing: a head that appeared or
// moved is the newest; refs that are gone are forgotten. Heads that
// appear in one listing are newer the higher their pull-request number.
func (q *previewQueue) observe(heads []sources.Head) {
	q.mu.Lock()
	defer q.mu.Unlock()
	fresh := make([]sources.Head, 0, len(heads))
	listed := make(map[string]bool, len(heads))
	for _, h := range heads {
		listed[h.Ref] = true
		if s, ok := q.seen[h.Ref]; !ok || s.commit != h.Commit {
			fresh = append(fresh, h)
		}
	}
	sort.SliceStable(fresh, func(i, j int) bool { return older(fresh[i].Ref, fresh[j].Ref) })
	for _, h := range fresh {
		q.seq++
		q.seen[h.Ref] = seenHead{commit: h.Commit, seq: q.seq}
	}
	for ref := range q.seen {
		if !listed[ref] {
			delete(q.seen, ref)
			delete(q.authors, ref)
		}
	}
}

// older orders two refs listed together: the lower pull-request number
// (refs/pull/N/head, refs/merge-requests/N/head) first, then by name.
func older(a, b string) bool {
	na, oka := prNumber(a)
	nb, okb := prNumber(b)
	if oka && okb && na != nb {
		return na < nb
	}
	return a > b
}

// prNumber is the number of a pull request's ref, when it has one.
func prNumber(ref string) (int, bool) {
	for _, part := range strings.Split(ref, "/") {
		if n, err := strconv.Atoi(part); err == nil && n >= 0 {
			return n, true
		}
	}
	return 0, false
}

// authored records the author of the commit a preview of ref fetched.
func (q *previewQueue) authored(ref, author string) {
	if author == "" {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.seen[ref]; ok {
		q.authors[ref] = author
	}
}

// order returns heads in the order they are previewed: newest first, in
// turn across authors (the author of a ref's last fetched commit; a ref
// never fetched is an author of its own), so that one author's many
// heads cannot keep another's waiting for more than one turn each.
func (q *previewQueue) order(heads []sources.Head) []sources.Head {
	q.mu.Lock()
	defer q.mu.Unlock()
	byAuthor := map[string][]sources.Head{}
	for _, h := range heads {
		who, ok := q.authors[h.Ref]
		if !ok {
			who = "\x00" + h.Ref
		}
		byAuthor[who] = append(byAuthor[who], h)
	}
	newer := func(a, b sources.Head) bool {
		sa, sb := q.seen[a.Ref].seq, q.seen[b.Ref].seq
		if sa != sb {
			return sa > sb
		}
		return a.Ref < b.Ref
	}
	groups := make([][]sources.Head, 0, len(byAuthor))
	for _, g := range byAuthor {
		sort.Slice(g, func(i, j int) bool { return newer(g[i], g[j]) })
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool { return newer(groups[i][0], groups[j][0]) })
	out := make([]sources.Head, 0, len(heads))
	for turn := 0; len(out) < len(heads); turn++ {
		for _, g := range groups {
			if turn < len(g) {
				out = append(out, g[turn])
			}
		}
	}
	return out
}

// setWaiting records the heads a round left waiting.
func (q *previewQueue) setWaiting(heads []sources.Head) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.waiting = heads
}

// Waiting returns the heads waiting for a preview after the last round,
// in the order they will be previewed.
func (q *previewQueue) Waiting() []sources.Head {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]sources.Head(nil), q.waiting...)
}

// ask hands the worker the extra heads of a poll and wakes it; asks
// that come while one is pending merge (the newest extra heads win).
func (q *previewQueue) ask(extra []sources.Head) {
	q.mu.Lock()
	q.extra = extra
	q.mu.Unlock()
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// take returns the extra heads of the last ask.
func (q *previewQueue) take() []sources.Head {
	q.mu.Lock()
	defer q.mu.Unlock()
	extra := q.extra
	q.extra = nil
	return extra
}

// yieldGate lets previews give way to the followed ref: the loop holds
// it (enter, leave) while it fetches, plans and rolls out its apps, and a
// preview waits for it to be free before it starts (one already under
// way finishes), for at most previewYield: a flood of pull requests takes
// no CPU from a rollout of the usual length, and a rollout that waits
// long on its workloads still lets previews through, one per
// previewYield.
type yieldGate struct {
	mu   sync.Mutex
	busy int
	free chan struct{}
}

// previewYield bounds how long a preview waits for the loop.
const previewYield = 30 * time.Second

func (g *yieldGate) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy == 0 {
		g.free = make(chan struct{})
	}
	g.busy++
}

func (g *yieldGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy--
	if g.busy == 0 {
		close(g.free)
	}
}

// wait returns once the loop is idle, or max has passed; or with ctx's
// error.
func (g *yieldGate) wait(ctx context.Context, max time.Duration) error {
	timeout := time.NewTimer(max)
	defer timeout.Stop()
	for {
		g.mu.Lock()
		if g.busy == 0 {
			g.mu.Unlock()
			return ctx.Err()
		}
		free := g.free
		g.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout.C:
			return ctx.Err()
		case <-free:
		}
	}
}

// PreviewsWaiting returns the pull-request heads that wait for their
// previews after the last round, in the order they will be made (for
// the web view).
func (a *Agent) PreviewsWaiting() []sources.Head { return a.queue.Waiting() }
