// Copyright 2026 The roleout Authors.
// SPDX-License-Identifier: Apache-2.0

package resmap

// Hooks roleout's render sets to hear from kustomize. Roleout patch
// (ROLEOUT.md): nothing else reads them, and unset they change nothing.

// Fallback, when set, is told each time a pass that roleout's patch
// speeds up takes the release's path instead, because the faster one
// could give another output; reason says why. The output is the
// release's either way.
var Fallback func(reason string)

// FellBack tells Fallback, when set, that a pass took the release's
// path.
func FellBack(reason string) {
	if Fallback != nil {
		Fallback(reason)
	}
}

// CustomSchema, when set, is called before a kustomization's own OpenAPI
// schema (its openapi field's path) is handed to kyaml; an error stops
// the build with it. roleout's warm sandbox processes, which parsed the
// built-in schema ahead, stop there and leave the render to a fresh one.
var CustomSchema func() error

// SettingCustomSchema calls CustomSchema, when set.
func SettingCustomSchema() error {
	if CustomSchema != nil {
		return CustomSchema()
	}
	return nil
}
