// Copyright 2026 The roleout Authors.
// SPDX-License-Identifier: Apache-2.0

package nameref

import (
	"reflect"
	"sort"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/resid"
)

// Index holds the previous ids of a set of resources, read once, for
// filters run while no resource's previous ids change (the name
// reference transformer's pass, whose filters write only name fields
// outside metadata). Without it, each name reference parses every
// candidate's previous-id annotations to find the few it names, and
// visits every candidate to do so.
//
// roleout patch: see ROLEOUT.md at the root of this module.
type Index struct {
	prevIds map[*resource.Resource][]resid.ResId
	// byName lists, for each name, the resources that once had it, each
	// once, in the order given to NewIndex.
	byName map[string][]*resource.Resource
	// subsets holds, for each candidate map seen, the position of each
	// of its resources in it; nil when one of them is not indexed.
	subsets map[resmap.ResMap]map[*resource.Resource]int
}

// NewIndex reads the previous ids of resources.
func NewIndex(resources []*resource.Resource) *Index {
	idx := &Index{
		prevIds: make(map[*resource.Resource][]resid.ResId, len(resources)),
		byName:  make(map[string][]*resource.Resource, len(resources)),
		subsets: map[resmap.ResMap]map[*resource.Resource]int{},
	}
	for _, r := range resources {
		ids := r.PrevIds()
		idx.prevIds[r] = ids
		for i, id := range ids {
			if !hadName(ids[:i], id.Name) {
				idx.byName[id.Name] = append(idx.byName[id.Name], r)
			}
		}
	}
	return idx
}

// hadName says one of ids has the name name.
func hadName(ids []resid.ResId, name string) bool {
	for _, id := range ids {
		if id.Name == name {
			return true
		}
	}
	return false
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
		return hadName(idx.prevIdsOf(r), name)
	}
}

// namedIn returns the resources of candidates that once had the name
// name, in candidates' order: what sieving candidates.Resources() with
// previousNameMatches(name) returns, without visiting every candidate.
// It reports false when it cannot tell (no index, or a candidate the
// index does not hold); the caller then sieves as released.
func (idx *Index) namedIn(name string, candidates resmap.ResMap) ([]*resource.Resource, bool) {
	if idx == nil || candidates == nil || reflect.TypeOf(candidates).Kind() != reflect.Pointer {
		return nil, false
	}
	pos, seen := idx.subsets[candidates]
	if !seen {
		pos = make(map[*resource.Resource]int, candidates.Size())
		for i, r := range candidates.Resources() {
			if _, ok := idx.prevIds[r]; !ok {
				pos = nil
				break
			}
			pos[r] = i
		}
		idx.subsets[candidates] = pos
	}
	if pos == nil {
		return nil, false
	}
	var named []*resource.Resource
	for _, r := range idx.byName[name] {
		if _, ok := pos[r]; ok {
			named = append(named, r)
		}
	}
	sort.SliceStable(named, func(i, j int) bool { return pos[named[i]] < pos[named[j]] })
	return named, true
}
