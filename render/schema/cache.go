package schema

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// structuralSchemas remembers the structural schemas of the CRDs
// predictions were last given: reading one out of a large CRD (aibrix's
// StormService CRD has 4,000 lines) costs tens of milliseconds, and a
// plan predicts every workload of a kind with the same CRD object.
var structuralSchemas = NewCache(structural)

// cacheSize bounds a cache; it is emptied when full.
const cacheSize = 64

// cacheKey names one CRD object's schema for one version. The
// resourceVersion and generation tell a re-read CRD from the old one;
// a CRD of a render has neither, and is a new object each render.
type cacheKey struct {
	crd                      *unstructured.Unstructured
	resourceVersion, version string
	generation               int64
}

// Cache remembers what compile made of a CRD's schema for one version:
// its structural schema (structuralSchemas), or the API server's
// validators (render/validate). The resourceVersion and generation tell
// a re-read CRD from the old one; a CRD of a render has neither, and is
// a new object each render.
type Cache[T any] struct {
	compile func(crd *unstructured.Unstructured, version string) (T, error)
	mu      sync.Mutex
	entries map[cacheKey]T
}

// NewCache returns an empty cache of what compile makes of CRDs.
func NewCache[T any](compile func(crd *unstructured.Unstructured, version string) (T, error)) *Cache[T] {
	return &Cache[T]{compile: compile, entries: map[cacheKey]T{}}
}

// Get returns what compile makes of crd for version, compiling it once.
// Pruning, defaulting and validation only read it, so callers share it.
func (c *Cache[T]) Get(crd *unstructured.Unstructured, version string) (T, error) {
	key := cacheKey{crd: crd, resourceVersion: crd.GetResourceVersion(), version: version, generation: crd.GetGeneration()}
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
	if len(c.entries) >= cacheSize {
		clear(c.entries)
	}
	c.entries[key] = s
	c.mu.Unlock()
	return s, nil
}
