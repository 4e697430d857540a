package model

import (
	"github.com/roleout/roleout/internal/object"
)

// Change is what a diff found for one object.
type Change string

// The Changes of ObjectDiff.
const (
	Create Change = "create"
	// CreatePending: the object's kind comes with a CRD the same plan
	// installs first, so the API server cannot dry-run it yet.
	CreatePending Change = "create (CRD pending)"
	// CreateInPendingNamespace: the object's namespace is created by the
	// same plan first, so the API server cannot dry-run it yet.
	CreateInPendingNamespace Change = "create (namespace pending)"
	Update                   Change = "update"
	Delete                   Change = "delete"
	NoChange                 Change = "unchanged"
)

// ObjectDiff is the diff of one object: what would change and a unified
// diff of the normalised live and desired objects, Secret values masked.
type ObjectDiff struct {
	Object object.Ref `json:"object"`
	Change Change     `json:"change"`
	Diff   string     `json:"diff,omitempty"`
	// Fields are the paths that differ in an Update, outermost first
	// (ChangedPaths); Secret values are compared masked.
	Fields []string `json:"fields,omitempty"`
}
