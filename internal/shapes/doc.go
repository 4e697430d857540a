// Package shapes writes kustomize layouts of any size, for the render
// benchmarks (render's Go benchmarks, make bench) and the tests that
// compare roleout's renderer with kustomize's byte for byte.
//
// Flat is the benchmark app's shape: one kustomization, a namespace and
// multi-document files of ConfigMaps and Deployments. Rich exercises what
// makes kustomize slow or subtle: several bases, a component, generators
// with hashed names and the references to them, strategic-merge and JSON
// patches, replacements, an images transformer, labels with selectors,
// and a namePrefix overlay.
package shapes
