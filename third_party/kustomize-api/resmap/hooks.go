// Copyright 2026 The roleout Authors.
// SPDX-License-Identifier: Apache-2.0

package resmap

// A hook roleout's render sets to hear from kustomize. Roleout patch
// (ROLEOUT.md): nothing else reads it, and unset it changes nothing.

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
