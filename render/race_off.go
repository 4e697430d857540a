//go:build !race

package render

// raceBuild says the binary was built with the race detector (see
// race_on.go).
const raceBuild = false
