package statusstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// real git server: every record of both is there afterwards, in order.
func TestHistoryTwoWriters(t *testing.T) {
	srv := testgit.New(t, testgit.Options{})
	repo := srv.MustRepo(t, "config")
	if _, err := repo.Commit("main", "first", map[string]string{"a.yaml": "a\n"}); err != nil {
		t.Fatal(err)
	}
	const rounds = 20
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, 2*rounds)
	for w, writer := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := New(Options{URL: srv.RepoURL("config"), Branch: "roleout/status",
				AuthorName: "roleout-" + writer, AuthorEmail: writer + "@example.com", Merge: status.MergeFile, MaxAttempts: 30})
			var mine []status.Rollout
			for i := range rounds {
				mine = append(mine, status.Rollout{SourceRevision: fmt.Sprintf("%s-%02d", writer, i), Trigger: "poll",
					Started: metav1.NewTime(start.Add(time.Duration(2*i+w) * time.Second)), Result: status.PhaseSucceeded})
				data, err := yaml.Marshal(mine)
				if err == nil {
					_, err = b.Commit(context.Background(), map[string][]byte{status.HistoryPath("web"): data}, "roleout: "+writer)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := repo.Show("roleout/status", status.HistoryPath("web"))
	if err != nil {
		t.Fatal(err)
	}
	var got []status.Rollout
	if err := yaml.UnmarshalStrict([]byte(data), &got); err != nil {
		t.Fatal(err)
	}
	var want, revisions []string
	for i := range rounds {
		want = append(want, fmt.Sprintf("a-%02d", i), fmt.Sprintf("b-%02d", i))
	}
	for _, r := range got {
		revisions = append(revisions, r.SourceRevision)
	}
	if diff := cmp.Diff(want, revisions); diff != "" {
		t.Errorf("history records (-want +got)\n%s", diff)
	}
}

// TestRecordWorkloads: a role's record keeps at most
// MaxRecordedWorkloads workloads, those observed otherwise than predicted
