package status

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/internal/object"
)

// Drift is an object of an app that no longer is what roleout applied:
// deleted, or fields roleout owned changed by another field manager.
type Drift struct {
	// Object is Kind/namespace/name.
	Object  string `json:"object"`
	Role    string `json:"role"`
	Deleted bool   `json:"deleted,omitempty"`
	// Fields are the changed fields roleout applied (outermost first).
	Fields []string `json:"fields,omitempty"`
	// Managers are the field managers that own them now; none when they
	// were removed (or the object deleted).
	Managers []string    `json:"managers,omitempty"`
	Since    metav1.Time `json:"since"`
	// Healed says roleout applied the object again (selfHeal); false
	// records drift left alone.
	Healed bool `json:"healed"`
	// Compared says the periodic full comparison found it (a server-side
	// dry run of what roleout applies differs at Fields), not the
	// ownership of fields.
	Compared bool `json:"compared,omitempty"`
	// Ref is the object, as the agent tracks it; not recorded.
	Ref object.Ref `json:"-"`
}

// String says what drifted: "Deployment/ns/a: spec.replicas changed by kubectl".
func (d Drift) String() string {
	if d.Deleted {
		return d.Object + ": deleted"
	}
	by := "removed"
	if d.Compared {
		by = "differ from what roleout applies"
	}
	if len(d.Managers) > 0 {
		by = "changed by " + strings.Join(d.Managers, ", ")
	}
	return fmt.Sprintf("%s: %s %s", d.Object, strings.Join(d.Fields, ", "), by)
}
