package revision

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
)

// serverOwnedMetadata are the metadata fields the API server sets; they
// never count towards a template hash.
var serverOwnedMetadata = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "selfLink",
}

// lastAppliedAnnotation is kubectl's client-side-apply record.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// TemplateHash returns the template hash of a role's objects: FNV-32a over
// the canonical JSON of the normalised objects, sorted by group, kind,
// namespace and name, encoded as Kubernetes encodes revision hashes
// (rand.SafeEncodeString of the decimal sum). Normalising drops status,
// server-owned metadata and kubectl's last-applied annotation, so the hash
// depends on the objects' meaning only: not on key order, YAML style,
// comments or the order objs come in. objs are not modified.
func TemplateHash(objs []*unstructured.Unstructured) (string, error) {
	return hashNormalized(normalizeAll(objs), 0)
}

// normalizeAll returns the normalised objects sorted by group, kind,
// namespace and name.
func normalizeAll(objs []*unstructured.Unstructured) []map[string]any {
	norm := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		norm = append(norm, Normalize(o))
	}
	sortObjects(norm)
	return norm
}

// sortObjects sorts objects by group, kind, namespace and name.
func sortObjects(objs []map[string]any) {
	sort.SliceStable(objs, func(i, j int) bool { return sortKey(objs[i]) < sortKey(objs[j]) })
}

// hashNormalized hashes sorted normalised objects. A collision count
// above 0 is added to the hash the way the StatefulSet controller adds
// its collisionCount, giving a new name for a template whose name is
// taken by another.
func hashNormalized(norm []map[string]any, collisions int) (string, error) {
	h := fnv.New32a()
	for _, m := range norm {
		// encoding/json writes map keys in sorted order: canonical.
		data, err := json.Marshal(m)
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", sortKey(m), err)
		}
		h.Write(data)
		h.Write([]byte{'\n'})
	}
	if collisions > 0 {
		h.Write(strconv.AppendInt(nil, int64(collisions), 10))
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10)), nil
}

// Normalize returns a deep copy of o's content without status,
// server-owned metadata and kubectl's last-applied annotation; empty
// labels and annotations maps are dropped.
func Normalize(o *unstructured.Unstructured) map[string]any {
	c := o.DeepCopy().Object
	delete(c, "status")
	if md, ok := c["metadata"].(map[string]any); ok {
		for _, f := range serverOwnedMetadata {
			delete(md, f)
		}
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, lastAppliedAnnotation)
			if len(ann) == 0 {
				delete(md, "annotations")
			}
		}
		if l, ok := md["labels"].(map[string]any); ok && len(l) == 0 {
			delete(md, "labels")
		}
	}
	return c
}

func sortKey(m map[string]any) string {
	u := unstructured.Unstructured{Object: m}
	gvk := u.GroupVersionKind()
	return gvk.Group + "/" + gvk.Kind + "/" + u.GetNamespace() + "/" + u.GetName()
}
