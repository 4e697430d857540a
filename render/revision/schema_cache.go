package revision

import (
	"sync"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// structuralSchemas remembers the structural schemas of the CRDs
// predictions were last given: reading one out of a large CRD (aibrix's
// StormService CRD has 4,000 lines) costs tens of milliseconds, and a
// plan predicts every workload of a kind with the same CRD object.
var structuralSchemas = &schemaCache{entries: map[schemaKey]*structuralschema.Structural{}}

// schemaCacheSize bounds the cache; it is emptied when full.
const schemaCacheSize = 64

// schemaKey names one CRD object's schema for one version. The
// resourceVersion and generation tell a re-read CRD from the old one;
// a CRD of a render has neither, and is a new object each render.
type schemaKey struct {
	crd                      *unstructured.Unstructured
	resourceVersion, version string
	generation               int64
}

type schemaCache struct {
	mu      sync.Mutex
	entries map[schemaKey]*structuralschema.Structural
}

// get returns crd's structural schema for version, reading it once.
// Pruning and defaulting only read a schema, so callers share it.
func (c *schemaCache) get(crd *unstructured.Unstructured, version string) (*structuralschema.Structural, error) {
	key := schemaKey{crd: crd, resourceVersion: crd.GetResourceVersion(), version: version, generation: crd.GetGeneration()}
	c.mu.Lock()
	s, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := structural(crd, version)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.entries) >= schemaCacheSize {
		clear(c.entries)
	}
	c.entries[key] = s
	c.mu.Unlock()
	return s, nil
}
