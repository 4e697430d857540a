package model

import (
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/schema"
)

// Workload is a workload of a role with the identity its controller will
// compute for the rendered template.
type Workload struct {
	Ref       object.Ref
	Predicted object.Identity
	// Schema says where the schema of the prediction came from
	// (schema.SchemaRender, SchemaCluster or SchemaBuiltin; "" for
	// none).
	Schema schema.Schema
	// Unverified, when set, says why Predicted may not be the identity
	// the controller computes (Predicted is zero when roleout cannot
	// predict the workload at all).
	Unverified string
	// Skew, when not zero, is the version skew between the cluster and
	// roleout that makes the prediction unverified (PlanOptions.Versions).
	Skew object.Skew
	// Matches, for a built-in kind, is what its controller finds the
	// template's existing revision by (predict.Outcome.Matches): an
	// upgrade that leaves it alone does not roll the workload.
	Matches string
	// RestartsPods says the identity differs from the one of the role's
	// previous revision, or the workload is new: its pods are replaced
	// (or created). For a workload without a prediction it says the
	// workload's object changed, which may or may not touch its template.
	RestartsPods bool
}
