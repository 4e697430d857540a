package revision

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/secrets"
)

// TemplateHash returns the template hash of a role's objects: the hash
// the StatefulSet controller gives a ControllerRevision
// (history.HashControllerRevision: 32-bit FNV-1, hash/fnv.New32, of the
// revision's data and the collision count as decimal text, encoded with
// rand.SafeEncodeString) where the data is the canonical JSON of the
// normalised objects, sorted by group, kind, namespace and name, one per
// line, and the collision count is 0. Normalising drops status,
// server-owned metadata and kubectl's last-applied annotation, so the hash
// depends on the objects' meaning only: not on key order, YAML style,
// comments or the order objs come in. A Secret's values count by their
// keyed digest under m (internal/secrets), never in plaintext: the hash is
// stable for one install's key and differs across installs. A nil m counts
// no Secret value at all. objs are not modified.
func TemplateHash(objs []*unstructured.Unstructured, m *secrets.Masker) (string, error) {
	return hashNormalized(identityAll(objs, m), 0)
}

// sortObjects sorts objects by group, kind, namespace and name.
func sortObjects(objs []map[string]any) {
	sort.SliceStable(objs, func(i, j int) bool { return sortKey(objs[i]) < sortKey(objs[j]) })
}

// hashNormalized hashes sorted normalised objects with a collision
// count, as the StatefulSet controller hashes a revision
// (history.HashControllerRevision): 32-bit FNV-1 of the data, then of
// the count as decimal text, the sum written in decimal and encoded with
// rand.SafeEncodeString. The Deployment and DaemonSet controllers'
// controller.ComputeHash differs: FNV-32a, and the count as
// little-endian bytes. A count above 0 gives a new name to a template
// whose name another template holds.
//
// It is roleout's own naming of its role revisions, so it is written
// here rather than called from k8s.io/kubernetes: a change there (a
// padded hash, say) must not rename every recorded revision, and the
// status format's readers need not link the controllers.
// TestHashMatchesControllerRevision holds it to the controller's.
func hashNormalized(norm []map[string]any, collisions int32) (string, error) {
	data, err := canonicalData(norm)
	if err != nil {
		return "", err
	}
	h := fnv.New32()
	h.Write(data)
	h.Write([]byte(strconv.FormatInt(int64(collisions), 10)))
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10)), nil
}

// canonicalData returns the data a template hash covers: the canonical
// JSON of each normalised object, one per line.
func canonicalData(norm []map[string]any) ([]byte, error) {
	var data bytes.Buffer
	for _, m := range norm {
		// encoding/json writes map keys in sorted order: canonical.
		line, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("hash %s: %w", sortKey(m), err)
		}
		data.Write(line)
		data.WriteByte('\n')
	}
	return data.Bytes(), nil
}

// Normalize returns a deep copy of o's content as every template hash,
// record and diff sees it (object.Normalize: no status, no server-owned
// metadata, no kubectl or roleout bookkeeping annotations, no empty
// labels or annotations maps).
func Normalize(o *unstructured.Unstructured) map[string]any { return object.Normalize(o) }

func sortKey(m map[string]any) string {
	u := unstructured.Unstructured{Object: m}
	gvk := u.GroupVersionKind()
	return gvk.Group + "/" + gvk.Kind + "/" + u.GetNamespace() + "/" + u.GetName()
}
