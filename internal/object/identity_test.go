package object

import "testing"

// TestIdentityDescribe: the one wording of an identity in plans, diffs,
// previews, logs and Events, marked unverified with the reason when it is.
func TestIdentityDescribe(t *testing.T) {
	lws := Identity{TemplateRevisionHash: "79c7df5f65"}
	storm := Identity{ControllerRevisionName: "llm-5c9f7d8b4", RoleTemplateHashes: map[string]string{"prefill": "b", "decode": "a"}}
	for _, c := range []struct {
		name       string
		id         Identity
		unverified string
		want       string
	}{
		{"verified", lws, "", "template-revision-hash 79c7df5f65"},
		{"unverified", lws, "no CRD", "template-revision-hash 79c7df5f65, unverified: no CRD"},
		{"none", Identity{}, "a webhook", "no prediction, unverified: a webhook"},
		{"deployment", Identity{PodTemplateHash: "6d9f8c7b5", ReplicaSetName: "web-6d9f8c7b5"}, "", "ReplicaSet web-6d9f8c7b5"},
		{"hash only", Identity{PodTemplateHash: "6d9f8c7b5"}, "", "pod-template-hash 6d9f8c7b5"},
		{"daemonset", Identity{ControllerRevisionHash: "7c9d"}, "", "controller-revision-hash 7c9d"},
		{"stormservice, roles sorted", storm, "", "ControllerRevision llm-5c9f7d8b4, role decode role-template-hash a, role prefill role-template-hash b"},
		{"zero", Identity{}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.id.Describe(c.unverified); got != c.want {
				t.Errorf("Describe(%q) = %q, want %q", c.unverified, got, c.want)
			}
		})
	}
}

// TestIdentityEqual: identities compare by every field, the role hashes
// included, whatever their map's order.
func TestIdentityEqual(t *testing.T) {
	a := Identity{ControllerRevisionName: "x", RoleTemplateHashes: map[string]string{"a": "1", "b": "2"}}
	b := Identity{ControllerRevisionName: "x", RoleTemplateHashes: map[string]string{"b": "2", "a": "1"}}
	if !a.Equal(b) {
		t.Error("equal identities compare unequal")
	}
	b.RoleTemplateHashes["b"] = "3"
	if a.Equal(b) {
		t.Error("different role hashes compare equal")
	}
	if !(Identity{}).IsZero() || a.IsZero() {
		t.Error("IsZero wrong")
	}
}
