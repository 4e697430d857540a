package revision

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// structuralSchemas remembers the structural schemas of the CRDs
// predictions were last given: reading one out of a large CRD (aibrix's
// StormService CRD has 4,000 lines) costs tens of milliseconds, and a
// plan predicts every workload of a kind with the same CRD object.
var structuralSchemas = newSchemaCache(structural)

// schemaCacheSize bounds a cache; it is emptied when full.
const schemaCacheSize = 64

// schemaKey names one CRD object's schema for one version. The
// resourceVersion and generation tell a re-read CRD from the old one;
// a CRD of a render has neither, and is a new object each render.
type schemaKey struct {
	crd                      *unstructured.Unstructured
	resourceVersion, version string
	generation               int64
}

// schemaCache remembers what compile made of a CRD's schema for one
// version: its structural schema (structuralSchemas), or the validators
// of the API server (crdChecks, validate_custom.go).
type schemaCache[T any] struct {
	compile func(crd *unstructured.Unstructured, version string) (T, error)
	mu      sync.Mutex
	entries map[schemaKey]T
}

func newSchemaCache[T any](compile func(crd *unstructured.Unstructured, version string) (T, error)) *schemaCache[T] {
	return &schemaCache[T]{compile: compile, entries: map[schemaKey]T{}}
}

// get returns what compile makes of crd for version, compiling it once.
// Pruning, defaulting and validation only read it, so callers share it.
func (c *schemaCache[T]) get(crd *unstructured.Unstructured, version string) (T, error) {
	key := schemaKey{crd: crd, resourceVersion: crd.GetResourceVersion(), version: version, generation: crd.GetGeneration()}
	c.mu.Lock()
	s, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := c.compile(crd, version)
	if err != nil {
		return s, err
	}
	c.mu.Lock()
	if len(c.entries) >= schemaCacheSize {
		clear(c.entries)
	}
	c.entries[key] = s
	c.mu.Unlock()
	return s, nil
}
