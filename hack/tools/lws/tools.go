//go:build tools

// Package tools records the LeaderWorkerSet controller command this module
// builds.
package tools

import _ "sigs.k8s.io/lws/cmd"
