// Package schema says where a custom resource's schema comes from and
// what roleout models: the CustomResourceDefinition of the render, else
// the cluster's, else one roleout carries (For, Sources, Schema); the
// CRDs it carries, byte-for-byte copies from the modules of the
// controllers it links (BuiltinCRDs, crds/); those modules' versions and
// Kubernetes' (versions.go); and the structural schemas compiled from
// CRDs, cached per CRD object (Cache, Structural, AsStored).
//
// render/predict and render/validate choose schemas through it, so a
// prediction and the check before it read the same CRD. It is pure (the
// CRDs are embedded) and imports nothing of roleout but internal/object.
// Where both appear, Kubernetes' k8s.io/apimachinery/pkg/runtime/schema is
// imported as runtimeschema.
package schema
