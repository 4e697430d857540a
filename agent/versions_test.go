package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/roleout/roleout/internal/object"
)

// versionedApplier is a fakeApplier whose cluster runs versions.
type versionedApplier struct {
	*fakeApplier
	versions object.ClusterVersions
	reads    int
}

func (v *versionedApplier) ClusterVersions(context.Context, []object.ControllerDeployment) object.ClusterVersions {
	v.reads++
	return v.versions
}

// TestReconcileVersionSkew checks that a Kubernetes minor version other
// than the one modelled marks the Deployments' predictions unverified,
// logs the skew once per wave instead of a warning per mismatch, and that
// the versions are not read again for a revision already reconciled.
func TestReconcileVersionSkew(t *testing.T) {
	h := newHarness(threeRoles("decode:1"), nil)
	va := &versionedApplier{fakeApplier: h.applier, versions: object.ClusterVersions{Kubernetes: "v1.36.4", Controllers: map[string]string{"lws": "v0.8.1"}}}
	logger, hook := logtest.NewNullLogger()
	h.agent = NewWithDeps(h.agent.cfg, Deps{Fetcher: h.fetcher, Renderer: h.renderer, Planner: h.planner, Cluster: va, Status: h.status}, logger)
	h.applier.observed = map[string]object.Identity{"decode": {ReplicaSetName: "decode-other", PodTemplateHash: "other"}}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	const reason = "the cluster runs Kubernetes v1.36.4; roleout models v1.37"
	for _, role := range h.appStatus(t).Roles {
		for _, w := range role.Workloads {
			if w.Unverified != reason {
				t.Errorf("%s/%s: unverified %q, want %q", role.Name, w.Name, w.Unverified, reason)
			}
		}
	}
	var skewLines int
	for _, e := range hook.AllEntries() {
		if strings.HasPrefix(e.Message, "version skew: ") {
			skewLines++
			if e.Level != logrus.WarnLevel || e.Message != "version skew: the cluster runs Kubernetes v1.36.4, roleout models v1.37: 1 Deployment prediction unverified" {
				t.Errorf("skew line %s %q", e.Level, e.Message)
			}
		}
		if e.Level == logrus.WarnLevel && strings.Contains(e.Message, "the controller made") {
			t.Errorf("a mismatch of a skewed prediction is warned about: %q", e.Message)
		}
	}
	if skewLines != 3 {
		t.Errorf("%d skew lines, want one per wave (3); log: %v", skewLines, hook.AllEntries())
	}
	if va.reads != 1 {
		t.Errorf("versions read %d times for one plan", va.reads)
	}
	if err := h.agent.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if va.reads != 1 {
		t.Errorf("an idle poll read the versions (%d reads)", va.reads)
	}
}

// TestReconcileNoSkew checks that matching or unknown versions leave the
// predictions verified, and that an Cluster without ClusterVersions is
// fine.
func TestReconcileNoSkew(t *testing.T) {
	for name, versions := range map[string]*object.ClusterVersions{
		"same":    {Kubernetes: "v1.37.1", Controllers: map[string]string{"lws": "v0.9.0"}},
		"unknown": {},
		"none":    nil,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(threeRoles("decode:1"), nil)
			if versions != nil {
				h.agent = NewWithDeps(h.agent.cfg, Deps{Fetcher: h.fetcher, Renderer: h.renderer, Planner: h.planner,
					Cluster: &versionedApplier{fakeApplier: h.applier, versions: *versions}, Status: h.status}, quietLogger())
			}
			if err := h.agent.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, role := range h.appStatus(t).Roles {
				for _, w := range role.Workloads {
					if w.Unverified != "" {
						t.Errorf("%s/%s: unverified %q", role.Name, w.Name, w.Unverified)
					}
				}
			}
		})
	}
}
