package predict

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	lwsv1 "sigs.k8s.io/lws/api/leaderworkerset/v1"
	lwsrevision "sigs.k8s.io/lws/pkg/utils/revision"
	lwswebhooks "sigs.k8s.io/lws/pkg/webhooks"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/schema"
)

// lwsScheme knows the types the LeaderWorkerSet revision code looks up.
var lwsScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = lwsv1.AddToScheme(s)
	return s
}()

// predictLeaderWorkerSet predicts the template-revision-hash the
// LeaderWorkerSet controller (sigs.k8s.io/lws v0.9.0, linked) gives o: the
// CRD's structural defaults and pruning when it has a CRD (crd), the
// mutating webhook's defaults, then lws' own revision code on the object
// decoded into its types, as the controller reads it.
func predictLeaderWorkerSet(o, crd *unstructured.Unstructured, _ Options) (object.Identity, error) {
	u := o.DeepCopy()
	if crd != nil {
		if err := schema.AsStored(u, crd); err != nil {
			return object.Identity{}, err
		}
	}
	data, err := u.MarshalJSON()
	if err != nil {
		return object.Identity{}, err
	}
	var lws lwsv1.LeaderWorkerSet
	if err := json.Unmarshal(data, &lws); err != nil {
		return object.Identity{}, fmt.Errorf("decode as a LeaderWorkerSet: %w", err)
	}
	// lws' functions take a context; nothing here does I/O or waits (the
	// client is in memory), so prediction stays a pure function.
	ctx := context.TODO()
	if err := (&lwswebhooks.LeaderWorkerSetWebhook{}).Default(ctx, &lws); err != nil {
		return object.Identity{}, fmt.Errorf("apply the LeaderWorkerSet webhook's defaults: %w", err)
	}
	// The revision code lists earlier revisions to number the new one; an
	// empty in-memory client gives number 1 and leaves the hash alone.
	cr, err := lwsrevision.NewRevision(ctx, fake.NewClientBuilder().WithScheme(lwsScheme).Build(), &lws, "")
	if err != nil {
		return object.Identity{}, err
	}
	return object.Identity{TemplateRevisionHash: cr.Labels[lwsv1.RevisionKey]}, nil
}
