package apply

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
type ImmutableError struct{ Err error }

func (e *ImmutableError) Error() string {
	return fmt.Sprintf("immutable field changed (%v): annotate the object %s: \"true\" to delete and recreate it", e.Err, RecreateAnnotation)
}

func (e *ImmutableError) Unwrap() error { return e.Err }

// isImmutable reports whether err is the API server refusing a change to
// an immutable field.
func isImmutable(err error) bool {
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "immutable")
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
	if isImmutable(err) {
		return &ImmutableError{Err: err}
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
