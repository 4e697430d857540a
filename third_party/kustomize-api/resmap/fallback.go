// Copyright 2026 The roleout Authors.
// SPDX-License-Identifier: Apache-2.0

package resmap

// Fallback, when set, is told each time a pass that roleout's patch
// speeds up takes the release's path instead, because the faster one
// could give another output; reason says why. The output is the
// release's either way. Roleout patch (ROLEOUT.md).
var Fallback func(reason string)

// FellBack tells Fallback, when set, that a pass took the release's
// path. Roleout patch.
func FellBack(reason string) {
	if Fallback != nil {
		Fallback(reason)
	}
}
