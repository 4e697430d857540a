package apply

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/internal/object"
)

// Scopes reads from the cluster's discovery whether each of kinds is
// namespaced (true) or cluster-scoped (false). A kind the cluster does
// not serve is absent; the first one missing makes the mapper rediscover
// once, so a CRD installed a moment ago is found, and a render listing
// many unknown kinds costs one rediscovery, not one each. The error is
// the cluster's, when discovery fails.
func (a *Applier) Scopes(_ context.Context, kinds []schema.GroupKind) (map[schema.GroupKind]bool, error) {
	out := make(map[schema.GroupKind]bool, len(kinds))
	reset := false
	for _, gk := range kinds {
		m, err := a.mapper.RESTMapping(gk)
		if meta.IsNoMatchError(err) && !reset {
			a.mapper.Reset()
			reset = true
			m, err = a.mapper.RESTMapping(gk)
		}
		switch {
		case meta.IsNoMatchError(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("read the scope of %s from the cluster's discovery: %w", gk, err)
		}
		out[gk] = m.Scope.Name() != meta.RESTScopeNameRoot
	}
	return out, nil
}

// ScopeError refuses an object whose scope in the cluster is not the one
// it was planned with (the error names the object through Result): the destination rules judged it namespaced (it
// names a namespace) and the cluster serves its kind cluster-scoped, or
// the reverse. Applying it would put it where no rule allowed.
type ScopeError struct {
	Object object.Ref
	// ClusterScoped is the scope the cluster serves the kind with.
	ClusterScoped bool
}

func (e *ScopeError) Error() string {
	if e.ClusterScoped {
		return fmt.Sprintf("refused: the cluster serves kind %s cluster-scoped, but it was planned in namespace %s, "+
			"so the app's destination rules never judged it as cluster-scoped", e.Object.Kind, e.Object.Namespace)
	}
	return fmt.Sprintf("refused: the cluster serves kind %s namespaced, but it was planned without a namespace", e.Object.Kind)
}

// checkScope refuses o when m's scope disagrees with o's namespace
// (ScopeError): the applier's own check of what planning allowed.
func checkScope(o *unstructured.Unstructured, m *meta.RESTMapping) error {
	clusterScoped := m.Scope.Name() == meta.RESTScopeNameRoot
	if clusterScoped == (o.GetNamespace() == "") {
		return nil
	}
	return &ScopeError{Object: object.RefOf(o), ClusterScoped: clusterScoped}
}
