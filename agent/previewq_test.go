package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
)

// prHeads returns n pull-request heads, refs/pull/1/head to n, each at a
// commit of its own, and a fake fetcher for each whose commit author is
// author(i).
func prHeads(n int, author func(i int) string) ([]sources.Head, map[string]*fakeFetcher) {
	var heads []sources.Head
	fetchers := map[string]*fakeFetcher{}
	for i := 1; i <= n; i++ {
		ref := fmt.Sprintf("refs/pull/%d/head", i)
		commit := fmt.Sprintf("%040x", i)
		heads = append(heads, sources.Head{Ref: ref, Commit: commit})
		fetchers[ref] = &fakeFetcher{snap: sources.Snapshot{Dir: "pr", Author: author(i), Revision: sources.SourceRevision{Ref: ref, Commit: commit}}}
	}
	return heads, fetchers
}

// TestPreviewOrder: heads are previewed newest first, in turn across
// authors, once their authors are known; a head that moves is the
// newest.
func TestPreviewOrder(t *testing.T) {
	q := newPreviewQueue()
	heads, _ := prHeads(6, func(int) string { return "" })
	q.observe(heads)
	refs := func(hs []sources.Head) string {
		var out []string
		for _, h := range hs {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(h.Ref, "refs/pull/"), "/head"))
		}
		return strings.Join(out, " ")
	}
	if got := refs(q.order(heads)); got != "6 5 4 3 2 1" {
		t.Errorf("unknown authors: order %s, want the newest pull request first", got)
	}
	// 1–5 are one author's, 6 another's: 6 goes first (newest), then
	// the first author's newest, … and no author waits for another's
	// whole batch.
	for i := 1; i <= 5; i++ {
		q.authored(fmt.Sprintf("refs/pull/%d/head", i), "flood@example.com")
	}
	q.authored("refs/pull/6/head", "alice@example.com")
	heads[0].Commit = fmt.Sprintf("%040x", 100) // pull request 1 moves
	q.observe(heads)
	if got := refs(q.order(heads)); got != "1 6 5 4 3 2" {
		t.Errorf("after pull request 1 moved: order %s, want 1 (moved), 6 (the other author), then the rest", got)
	}
	q.authored("refs/pull/7/head", "nobody@example.com") // not listed: not kept
	if _, ok := q.authors["refs/pull/7/head"]; ok {
		t.Error("the author of a ref never listed was kept")
	}
	q.observe(heads[:2])
	if len(q.seen) != 2 || len(q.authors) != 2 {
		t.Errorf("refs gone from the listing are still kept: %d seen, %d authors", len(q.seen), len(q.authors))
	}
}

// TestPreviewRoundBounds: a round previews at most maxHeadsPerPoll
// heads; the others wait, none recorded, and the next rounds preview
// them; a head that is previewed is not previewed again.
func TestPreviewRoundBounds(t *testing.T) {
	h := newHarness([]*unstructured.Unstructured{roleDeployment("web", "web", 1, "web:2")}, func(a *config.App) { a.Namespace = "app" })
	heads, fetchers := prHeads(25, func(i int) string { return fmt.Sprintf("dev%d@example.com", i%3) })
	h.agent.deps.PullRequests = &fakePullRequests{heads: heads, fetchers: fetchers}
	h.agent.cfg.Source.PullRequests = &config.PullRequests{Refs: []string{"refs/pull/*/head"}, MaxHeadsPerPoll: 10}
	previewed := func() int {
		n := 0
		for name := range h.status.files {
			if strings.HasPrefix(name, "llm/previews/") && strings.HasSuffix(name, ".json") {
				n++
				p, ok := status.ReadPreview(h.status.files, "llm", strings.TrimSuffix(strings.TrimPrefix(name, "llm/previews/"), ".json"))
				if !ok || p.Error != "" {
					t.Errorf("preview %s: %+v", name, p)
				}
			}
		}
		return n
	}
	for round, want := range []int{10, 20, 25, 25} {
		if err := h.agent.previews(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := previewed(); got != want {
			t.Errorf("round %d: %d heads previewed, want %d", round+1, got, want)
		}
		if got, wait := len(h.agent.queue.Waiting()), 25-want; got != wait {
			t.Errorf("round %d: %d heads waiting, want %d", round+1, got, wait)
		}
	}
	fetches := 0
	for _, f := range fetchers {
		fetches += f.fetchCount()
	}
	if fetches != 25 {
		t.Errorf("%d fetches of 25 heads: a head was previewed twice", fetches)
	}
	if got := testutil.ToFloat64(h.agent.metrics.previews.WithLabelValues("deferred")); got != 15+5 {
		t.Errorf("roleout_previews_total{result=deferred} = %v, want 20", got)
	}
}

// cancellingFetcher cancels the round's context as it fetches: a
// shutdown in the middle of a preview.
type cancellingFetcher struct {
	fakeFetcher
	cancel context.CancelFunc
}

func (f *cancellingFetcher) Fetch(ctx context.Context) (sources.Snapshot, error) {
	f.cancel()
	return sources.Snapshot{}, ctx.Err()
}

// TestPreviewCutIsNotRecorded: a preview cut by cancellation records no
// failure; the head waits, and the next round previews it.
func TestPreviewCutIsNotRecorded(t *testing.T) {
	h := newHarness([]*unstructured.Unstructured{roleDeployment("web", "web", 1, "web:2")}, func(a *config.App) { a.Namespace = "app" })
	heads, fetchers := prHeads(1, func(int) string { return "dev@example.com" })
	prs := &fakePullRequests{heads: heads, fetchers: fetchers}
	h.agent.deps.PullRequests = prs
	h.agent.cfg.Source.PullRequests = &config.PullRequests{Refs: []string{"refs/pull/*/head"}}
	ctx, cancel := context.WithCancel(context.Background())
	cut := &cancellingFetcher{cancel: cancel}
	h.agent.deps.PullRequests = cutPullRequests{prs, cut}
	_ = h.agent.previews(ctx)
	if _, ok := h.status.files["llm/previews/pull-1-head.json"]; ok {
		t.Fatalf("a preview cut by cancellation was recorded: %s", h.status.files["llm/previews/pull-1-head.json"])
	}
	if got := testutil.ToFloat64(h.agent.metrics.previews.WithLabelValues("cut")); got != 1 {
		t.Errorf("roleout_previews_total{result=cut} = %v, want 1", got)
	}
	h.agent.deps.PullRequests = prs
	if err := h.agent.previews(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p, ok := status.ReadPreview(h.status.files, "llm", "pull-1-head"); !ok || p.Error != "" || p.Commit != heads[0].Commit {
		t.Errorf("the next round's preview: %+v (found %v)", p, ok)
	}
}

// cutPullRequests lists prs' heads and fetches every one with cut.
type cutPullRequests struct {
	*fakePullRequests
	cut *cancellingFetcher
}

func (c cutPullRequests) Fetcher(string) Fetcher { return c.cut }
