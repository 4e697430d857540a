package revision

import (
	"encoding/json"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
)

// RoleRevision is one recorded version of a role's rendered objects.
type RoleRevision struct {
	// Name is <app>-<role>-<hash>.
	Name string
	// Hash is the template hash in the name: TemplateHash, or when that
	// name was taken, the hash with the collision count that freed one.
	Hash string
	// Number is the role revision's number: 1, 2, …; a rollback moves an
	// old revision to the next one.
	Number int64
	// Objects are the role's recorded objects (see Record: normalised,
	// Secret values masked), sorted.
	Objects []map[string]any
	// Source is the source revision it was first rendered from.
	Source string
}

// Action is what a new render means for a role's history.
type Action string

// The Actions of a Decision.
const (
	// Unchanged: the latest revision has the rendered template.
	Unchanged Action = "unchanged"
	// Rollback: an older revision has it; its number moves to max+1.
	Rollback Action = "rollback"
	// Update: no revision has it; a new one gets max+1.
	Update Action = "update"
	// Install is what plans and previews call an Update of a role that
	// has no earlier revision (Decision.Previous 0): its first install.
	// Decide never returns it, and history records keep Update: for the
	// history both are a new revision (KEP-238). See PlanAction.
	Install Action = "install"
)

// Decision is the outcome of comparing a render with a role's history.
type Decision struct {
	Action Action
	// Revision is the role's current revision after the decision.
	Revision RoleRevision
	// Previous is the revision number the role had before (0 for none).
	Previous int64
}

// PlanAction is d's action as plans, previews and logs name it: Install
// for an Update of a role with no earlier revision, else d.Action.
func (d Decision) PlanAction() Action {
	if d.Action == Update && d.Previous == 0 {
		return Install
	}
	return d.Action
}

// Decide compares the objects rendered for role of app with the role's
// history (KEP-238 semantics): the latest revision holding the same
// template means unchanged; an older one is rolled back to and its number
// moves to max+1; otherwise a new revision max+1 is made, named
// <app>-<role>-<hash>. A name already taken by a different template (a
// collision of the 32-bit hash) is resolved as the StatefulSet controller
// resolves one: the collision count goes up by one and the template is
// hashed again with it (see TemplateHash), until the name is free. Secrets
// are recorded and hashed through m (see Record and TemplateHash). It
// returns the decision and the new history, sorted by revision number. It
// is pure.
func Decide(app, role string, objs []*unstructured.Unstructured, history []RoleRevision, source string, m *secrets.Masker) (Decision, []RoleRevision, error) {
	rec := recordAll(objs, m)
	norm := identityAll(objs, m)
	hist := append([]RoleRevision(nil), history...)
	sort.Slice(hist, func(i, j int) bool { return hist[i].Number < hist[j].Number })
	var latest int64
	if n := len(hist); n > 0 {
		latest = hist[n-1].Number
	}
	// Change-marker records hold no trace of Secret values: the hash,
	// keyed, tells a changed value apart.
	byHash := m.Mode() != secrets.MaskHMAC && hasSecret(objs)
	for i := range hist {
		if !sameObjects(hist[i].Objects, rec) {
			continue
		}
		if byHash {
			if same, err := sameHash(hist[i], norm, len(hist)); err != nil || !same {
				continue
			}
		}
		if hist[i].Number == latest {
			return Decision{Action: Unchanged, Revision: hist[i], Previous: latest}, hist, nil
		}
		r := hist[i]
		r.Number = latest + 1
		hist = append(append(hist[:i:i], hist[i+1:]...), r)
		return Decision{Action: Rollback, Revision: r, Previous: latest}, hist, nil
	}
	for collisions := int32(0); ; collisions++ {
		h, err := hashNormalized(norm, collisions)
		if err != nil {
			return Decision{}, nil, err
		}
		name := fmt.Sprintf("%s-%s-%s", app, role, h)
		if taken(hist, name) {
			continue
		}
		r := RoleRevision{Name: name, Hash: h, Number: latest + 1, Objects: rec, Source: source}
		return Decision{Action: Update, Revision: r, Previous: latest}, append(hist, r), nil
	}
}

// sameHash reports whether r's hash is the hash of norm with a collision
// count of at most maxCollisions.
func sameHash(r RoleRevision, norm []map[string]any, maxCollisions int) (bool, error) {
	for c := int32(0); c <= int32(maxCollisions); c++ {
		h, err := hashNormalized(norm, c)
		if err != nil {
			return false, err
		}
		if h == r.Hash {
			return true, nil
		}
	}
	return false, nil
}

func taken(hist []RoleRevision, name string) bool {
	for _, r := range hist {
		if r.Name == name {
			return true
		}
	}
	return false
}

func sameObjects(a, b []map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// Truncate keeps the limit highest-numbered revisions of history, always
// including the one named current, sorted by revision number.
func Truncate(history []RoleRevision, limit int, current string) []RoleRevision {
	hist := append([]RoleRevision(nil), history...)
	sort.Slice(hist, func(i, j int) bool { return hist[i].Number > hist[j].Number })
	var out []RoleRevision
	for _, r := range hist {
		if r.Name == current {
			out = append(out, r)
		}
	}
	for _, r := range hist {
		if len(out) >= max(limit, 1) {
			break
		}
		if r.Name != current {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// ControllerRevision returns r as the apps/v1 ControllerRevision that
// records it, in namespace.
func (r RoleRevision) ControllerRevision(app, role, namespace string) (*appsv1.ControllerRevision, error) {
	data, err := json.Marshal(map[string]any{"objects": r.Objects})
	if err != nil {
		return nil, err
	}
	cr := &appsv1.ControllerRevision{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      r.Name,
			Namespace: namespace,
			Labels:    map[string]string{object.AppLabel: app, object.RoleLabel: role, object.TemplateHashLabel: r.Hash},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: r.Number,
	}
	if r.Source != "" {
		cr.Annotations = map[string]string{object.SourceAnnotation: r.Source}
	}
	return cr, nil
}

// FromControllerRevision reads a RoleRevision back from its
// ControllerRevision.
func FromControllerRevision(cr *appsv1.ControllerRevision) (RoleRevision, error) {
	var data struct {
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(cr.Data.Raw, &data); err != nil {
		return RoleRevision{}, fmt.Errorf("ControllerRevision %s: read data: %w", cr.Name, err)
	}
	return RoleRevision{
		Name: cr.Name, Hash: cr.Labels[object.TemplateHashLabel], Number: cr.Revision,
		Objects: data.Objects, Source: cr.Annotations[object.SourceAnnotation],
	}, nil
}

// MaskedSecrets lists the Secrets of r, whose values the record does not
// hold: such a revision cannot be re-applied from the record.
func (r RoleRevision) MaskedSecrets() []string {
	var out []string
	for _, m := range r.Objects {
		u := unstructured.Unstructured{Object: m}
		if IsSecret(&u) {
			out = append(out, u.GetNamespace()+"/"+u.GetName())
		}
	}
	return out
}

// UnstructuredObjects returns r's objects as unstructured objects, for
// re-applying a revision or predicting its workloads.
func (r RoleRevision) UnstructuredObjects() []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(r.Objects))
	for i, m := range r.Objects {
		out[i] = (&unstructured.Unstructured{Object: m}).DeepCopy()
	}
	return out
}
