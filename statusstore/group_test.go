package statusstore

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/roleout/roleout/internal/testgit"
)

// TestBatchMessageKeepsCommonTrailers: a batch of status commits keeps the
// trailers (the replica that wrote them) when every part has the same,
// and none when they differ or a part has none.
func TestBatchMessageKeepsCommonTrailers(t *testing.T) {
	part := func(msg string) *pendingCommit { return &pendingCommit{msg: msg} }
	cases := []struct {
		name  string
		parts []*pendingCommit
		want  string
	}{
		{"one part as it is", []*pendingCommit{part("roleout: a\n\nbody\n\nRoleout-Replica: r1")}, "roleout: a\n\nbody\n\nRoleout-Replica: r1"},
		{"common trailer kept", []*pendingCommit{part("roleout: a\n\nRoleout-Replica: r1"), part("roleout: b [wave 1/2]\n\nRoleout-Replica: r1")},
			"roleout: 2 status updates\n\nroleout: a\nroleout: b [wave 1/2]\n\nRoleout-Replica: r1"},
		{"different trailers dropped", []*pendingCommit{part("roleout: a\n\nRoleout-Replica: r1"), part("roleout: b\n\nRoleout-Replica: r2")},
			"roleout: 2 status updates\n\nroleout: a\nroleout: b"},
		{"a paragraph that is no trailer", []*pendingCommit{part("roleout: a\n\nthe body: has words"), part("roleout: b\n\nthe body: has words")},
			"roleout: 2 status updates\n\nroleout: a\nroleout: b"},
		{"no trailers", []*pendingCommit{part("roleout: a"), part("roleout: b")}, "roleout: 2 status updates\n\nroleout: a\nroleout: b"},
	}
	for _, c := range cases {
		if got := batchMessage(c.parts); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestBurstSharesACommit: calls started together share one commit; the
// first of them does not take the turn alone. Without the gather, each
// burst of 10 made 2 commits (the first call alone, then the others).
func TestBurstSharesACommit(t *testing.T) {
	srv, repo := testgit.Fixture(t, testgit.Options{})
	repo.MustCommit(t, "main", "first", map[string]string{"a.yaml": "a: 1\n"})
	b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status", AuthorName: "roleout", AuthorEmail: "r@example.com", CacheDir: t.TempDir()})
	defer b.Close()
	const bursts, calls = 5, 10
	for i := range bursts {
		var wg sync.WaitGroup
		for j := range calls {
			wg.Go(func() {
				name := fmt.Sprintf("app-%d/status.yaml", j)
				if _, err := b.Commit(context.Background(), map[string][]byte{name: fmt.Appendf(nil, "burst: %d\n", i)}, "roleout: "+name); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	log, err := repo.Log("roleout/status")
	if err != nil {
		t.Fatal(err)
	}
	// One commit per burst; a slow machine may split a burst now and then.
	if len(log) > bursts+2 {
		t.Errorf("%d bursts of %d calls made %d commits, want about %d", bursts, calls, len(log), bursts)
	}
	t.Logf("%d bursts of %d calls: %d commits", bursts, calls, len(log))
}

// TestAbsorbTakesWhatMeetsNothing: a batch retrying its push takes in
// the calls queued meanwhile, in order, except one that writes a path
// of the batch (or of a call taken before it), which waits for its own
// turn, as does everything past maxBatch.
func TestAbsorbTakesWhatMeetsNothing(t *testing.T) {
	call := func(paths ...string) *pendingCommit {
		files := map[string][]byte{}
		for _, p := range paths {
			files[p] = []byte("x")
		}
		return &pendingCommit{files: files}
	}
	first := call("a/status.yaml")
	g := newCommitGroup()
	same, other, overlap := call("a/status.yaml"), call("b/status.yaml"), call("b/status.yaml", "c/status.yaml")
	later := call("d/status.yaml")
	g.queue = []*pendingCommit{same, other, overlap, later}
	batch := g.absorb([]*pendingCommit{first})
	if len(batch) != 3 || batch[0] != first || batch[1] != other || batch[2] != later {
		t.Errorf("absorbed %d calls, want the batch's, then b and d in order", len(batch))
	}
	if len(g.queue) != 2 || g.queue[0] != same || g.queue[1] != overlap {
		t.Errorf("left %d calls queued, want the one writing a and the one writing b again", len(g.queue))
	}

	g.queue = nil
	for i := range maxBatch + 5 {
		g.queue = append(g.queue, call(fmt.Sprintf("app-%d/status.yaml", i)))
	}
	if batch := g.absorb([]*pendingCommit{first}); len(batch) != maxBatch || len(g.queue) != 6 {
		t.Errorf("a full batch took %d and left %d, want %d and 6", len(batch), len(g.queue), maxBatch)
	}
}
