// Copyright 2026 The roleout Authors.
// SPDX-License-Identifier: Apache-2.0

package utils

import "sigs.k8s.io/kustomize/kyaml/resid"

// IdKey is a map key for a resid.ResId under ResId.Equals: two ids made
// under the same OpenAPI schema are Equals exactly when their keys are
// equal (group, version, kind, name and effective namespace). It lets
// the resource map find an id without comparing it with every resource.
//
// roleout patch: see ROLEOUT.md at the root of this module.
type IdKey struct {
	Group, Version, Kind, Name, Namespace string
}

// KeyOf returns id's key.
func KeyOf(id resid.ResId) IdKey {
	return IdKey{Group: id.Group, Version: id.Version, Kind: id.Kind, Name: id.Name, Namespace: id.EffectiveNamespace()}
}
