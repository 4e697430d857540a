package agent

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/status"
)

// TestRefusedStatusHeadIsNotDone restarts the agent (nothing in memory)
// on a status that says the revision Succeeded: read from a trusted head,
// the revision is skipped; read past a refused head, the app is
// reconciled again, the refusal is logged with the commit and its
// signer, and the status records it.
func TestRefusedStatusHeadIsNotDone(t *testing.T) {
	cases := []struct {
		name       string
		refused    *status.Refusal
		wantRender int
	}{
		{"trusted head", nil, 1},
		{"refused head", &status.Refusal{Object: "commit f0f0f0f", Signer: "SHA256:mallory", Reason: "the SSH key is not the one of status.signingKeyFile"}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), nil)
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			h.status.refused = tc.refused
			var logs bytes.Buffer
			l := logrus.New()
			l.SetOutput(&logs)
			restarted := NewWithDeps(h.agent.cfg, h.agent.deps, l)
			if err := restarted.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			if h.renderer.calls != tc.wantRender {
				t.Errorf("renders = %d, want %d", h.renderer.calls, tc.wantRender)
			}
			st := h.appStatus(t)
			if tc.refused == nil {
				if st.StatusBranch != nil || strings.Contains(logs.String(), "not signed") {
					t.Errorf("a trusted head reported as refused: %+v\n%s", st.StatusBranch, logs.String())
				}
				return
			}
			c := st.StatusBranch
			if c == nil || c.Head != "f0f0f0f0f0" || c.Signer != "SHA256:mallory" || c.ReadFrom != "c0ffee" || st.Phase != status.PhaseSucceeded {
				t.Fatalf("status %s, statusBranch %+v: want the refused head recorded", st.Phase, c)
			}
			for _, want := range []string{"status branch head f0f0f0f (signed by SHA256:mallory) is not signed by status.signingKeyFile", "records read from c0ffee"} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, logs.String())
				}
			}
		})
	}
}
