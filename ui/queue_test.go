package ui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
)

// fakeQueue is a Queue of heads.
type fakeQueue []WaitingPreview

func (q fakeQueue) PreviewsWaiting() []WaitingPreview { return q }

// blind is an Authorizer whose readers may read nowhere.
type blind struct{}

func (blind) Authenticate(*http.Request) (*Reader, error) { return &Reader{Name: "nobody"}, nil }
func (blind) CanRead(context.Context, *Reader, string) (bool, error) {
	return false, nil
}

// TestPreviewsWaiting: the overview and /api/v1/apps list the heads
// waiting for previews, in order, the first maxWaitingShown of them and
// how many more; a reader who may see no app sees none of them.
func TestPreviewsWaiting(t *testing.T) {
	log := logrus.New()
	log.SetOutput(io.Discard)
	var q fakeQueue
	for i := range maxWaitingShown + 3 {
		q = append(q, WaitingPreview{Ref: "refs/pull/" + strings.Repeat("9", i+1) + "/head", Commit: strings.Repeat("ab", 20)})
	}
	store := NewStore(fixture(t), "roleout/status", []config.App{{Name: "shop", Namespace: "ns-shop"}}, log)
	store.Refresh(context.Background())
	for _, tc := range []struct {
		name  string
		auth  Authorizer
		shown bool
	}{{"a reader who sees an app", Open{}, true}, {"a reader who sees none", blind{}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := NewServer(store, tc.auth, log)
			srv.Queue = q
			hs := httptest.NewServer(srv)
			defer hs.Close()
			_, _, body := get(t, hs.URL+"/")
			listed := strings.Contains(body, "Previews waiting") && strings.Contains(body, "<code>refs/pull/9/head</code> at <code>abababa</code>") &&
				strings.Contains(body, "53 pull-request head(s) wait") && strings.Contains(body, "and 3 more")
			if listed != tc.shown || strings.Contains(body, "refs/pull/"+strings.Repeat("9", maxWaitingShown+1)+"/head") {
				t.Errorf("overview lists the heads waiting: %v, want %v (and the first %d only):\n%s", listed, tc.shown, maxWaitingShown, body)
			}
			_, _, js := get(t, hs.URL+"/api/v1/apps")
			var api struct {
				PreviewsWaiting []WaitingPreview `json:"previewsWaiting"`
			}
			if err := json.Unmarshal([]byte(js), &api); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: len(q), false: 0}[tc.shown]; len(api.PreviewsWaiting) != want {
				t.Errorf("/api/v1/apps lists %d heads waiting, want %d", len(api.PreviewsWaiting), want)
			}
		})
	}
}
