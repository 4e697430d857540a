//go:build race

package render

// raceBuild says the binary was built with the race detector, whose
// shadow memory takes terabytes of address space: a sandbox child then
// sets no address-space limit and relies on the parent's watch of its
// resident memory.
const raceBuild = true
