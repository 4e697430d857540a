package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roleout/roleout/apply"
	"github.com/roleout/roleout/render/predict"
)

// TestWorkloadKindTables: every kind roleout predicts is one it can
// observe after a wave, and the other way round: adding a workload kind
// is an entry in both tables (render/predict/doc.go).
func TestWorkloadKindTables(t *testing.T) {
	if diff := cmp.Diff(predict.WorkloadKinds(), apply.ObservedKinds()); diff != "" {
		t.Errorf("predicted kinds (-) and observed kinds (+) differ:\n%s", diff)
	}
	if len(apply.ObservedKinds()) < 5 {
		t.Errorf("observed kinds %v: want at least Deployment, StatefulSet, DaemonSet, LeaderWorkerSet, StormService", apply.ObservedKinds())
	}
}
