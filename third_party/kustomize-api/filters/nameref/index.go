// Copyright 2026 The roleout Authors.
// SPDX-License-Identifier: Apache-2.0

package nameref

import (
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/resid"
)

// Index holds the previous ids of a set of resources, read once, for
// filters run while no resource's previous ids change (the name
// reference transformer's pass, whose filters write only name fields
// outside metadata). Without it, each name reference parses every
// candidate's previous-id annotations to find the few it names.
//
// roleout patch: see ROLEOUT.md at the root of this module.
type Index struct {
	prevIds map[*resource.Resource][]resid.ResId
}

// NewIndex reads the previous ids of resources.
func NewIndex(resources []*resource.Resource) *Index {
	idx := &Index{prevIds: make(map[*resource.Resource][]resid.ResId, len(resources))}
	for _, r := range resources {
		idx.prevIds[r] = r.PrevIds()
	}
	return idx
}

// prevIdsOf returns r's previous ids, from the index when it has them.
func (idx *Index) prevIdsOf(r *resource.Resource) []resid.ResId {
	if ids, ok := idx.prevIds[r]; ok {
		return ids
	}
	return r.PrevIds()
}

// previousNameMatches is the package's previousNameMatches over the
// index.
func (idx *Index) previousNameMatches(name string) sieveFunc {
	return func(r *resource.Resource) bool {
		for _, id := range idx.prevIdsOf(r) {
			if id.Name == name {
				return true
			}
		}
		return false
	}
}
