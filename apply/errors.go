package apply

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/internal/object"
)

// ConflictError is a server-side apply refused because other field
// managers own fields roleout sets.
type ConflictError struct {
	// Managers maps each conflicting field manager to the fields it owns.
	Managers map[string][]string
	Err      error
}

func (e *ConflictError) Error() string {
	var parts []string
	managers := make([]string, 0, len(e.Managers))
	for m := range e.Managers {
		managers = append(managers, m)
	}
	sort.Strings(managers)
	for _, m := range managers {
		parts = append(parts, fmt.Sprintf("field manager %q owns %s", m, strings.Join(e.Managers[m], ", ")))
	}
	return "conflict: " + strings.Join(parts, "; ") + ": set force: true on the app to take ownership, or stop the other writer"
}

func (e *ConflictError) Unwrap() error { return e.Err }

// ImmutableError is a change to a field the API server does not let
// change.
type ImmutableError struct {
	// Fields are the fields the API server refused to change, as it names
	// them (spec.selector, spec.template, spec.clusterIPs[0]), each with
	// its reason ("field is immutable", "may not change once set").
	Fields []ImmutableField
	Err    error
}

// ImmutableField is one field of an ImmutableError.
type ImmutableField struct {
	Path   string
	Reason string
}

func (e *ImmutableError) Error() string {
	var parts []string
	for _, f := range e.Fields {
		parts = append(parts, fmt.Sprintf("%s (%s)", f.Path, f.Reason))
	}
	what := "immutable field changed"
	if len(parts) > 0 {
		what += ": " + strings.Join(parts, ", ")
	} else {
		what += fmt.Sprintf(" (%v)", e.Err)
	}
	return what + fmt.Sprintf(": annotate the object %s: \"true\" to delete and recreate it", object.RecreateAnnotation)
}

func (e *ImmutableError) Unwrap() error { return e.Err }

// immutablePhrases are the ways the API server's validation says a field
// cannot change: "field is immutable" (StatefulSet selector, Job
// template, ConfigMap data), "may not change once set" (Service
// clusterIP), and the StatefulSet and Pod spec rules "updates to … for
// fields other than … are forbidden", "may not change fields other than".
var immutablePhrases = []string{"immutable", "may not change once set", "for fields other than", "may not change fields other than"}

func saysImmutable(msg string) bool {
	for _, p := range immutablePhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// immutableFields returns the fields an Invalid error says cannot change,
// and whether err is such a refusal at all. An Invalid error without
// causes counts when its message says so; it then names no field.
func immutableFields(err error) ([]ImmutableField, bool) {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		return nil, false
	}
	var fields []ImmutableField
	if d := status.Status().Details; d != nil {
		for _, c := range d.Causes {
			if saysImmutable(c.Message) {
				fields = append(fields, ImmutableField{Path: c.Field, Reason: causeReason(c.Message)})
			}
		}
	}
	return fields, len(fields) > 0 || saysImmutable(status.Status().Message)
}

// causeReason drops the "Invalid value: <the whole value>: " prefix of a
// cause message (for a Job template, a dump of the whole pod template)
// and keeps the reason after it.
func causeReason(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// isImmutable reports whether err is the API server refusing a change to
// an immutable field.
func isImmutable(err error) bool {
	_, ok := immutableFields(err)
	return ok
}

// explainApplyError turns conflicts and immutable-field refusals into
// typed errors that say what to do.
func explainApplyError(err error) error {
	var status apierrors.APIStatus
	if apierrors.IsConflict(err) && errors.As(err, &status) && status.Status().Details != nil {
		managers := map[string][]string{}
		for _, c := range status.Status().Details.Causes {
			if c.Type != metav1.CauseTypeFieldManagerConflict {
				continue
			}
			m := managerOf(c.Message)
			managers[m] = append(managers[m], c.Field)
		}
		if len(managers) > 0 {
			return &ConflictError{Managers: managers, Err: err}
		}
	}
	if fields, ok := immutableFields(err); ok {
		return &ImmutableError{Fields: fields, Err: err}
	}
	return fmt.Errorf("server-side apply: %w", err)
}

// managerOf extracts the manager from a conflict cause message such as
// `conflict with "kubectl-edit" using apps/v1`.
func managerOf(msg string) string {
	if _, rest, ok := strings.Cut(msg, `conflict with "`); ok {
		if m, _, ok := strings.Cut(rest, `"`); ok {
			return m
		}
	}
	return msg
}
