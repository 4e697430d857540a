package sources

import "testing"

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
