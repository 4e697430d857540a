//go:build tools

// Package tools records the aibrix controller-manager command this module
// builds.
package tools

import _ "github.com/vllm-project/aibrix/cmd/controllers"
