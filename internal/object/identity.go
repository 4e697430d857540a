package object

import (
	"encoding/json"
	"sort"
	"strings"
)

// Identity is the identity a workload's controller gives its template:
// what roleout predicts offline (render/predict) and what it observes in
// the cluster after a wave (apply.ObserveResult) are this one type,
// so the two compare with Equal and print the same way with String.
type Identity struct {
	// PodTemplateHash and ReplicaSetName: Deployment.
	PodTemplateHash string `json:"podTemplateHash,omitempty"`
	ReplicaSetName  string `json:"replicaSetName,omitempty"`
	// ControllerRevisionName: StatefulSet (also the pods'
	// controller-revision-hash) and StormService.
	ControllerRevisionName string `json:"controllerRevisionName,omitempty"`
	// ControllerRevisionHash: DaemonSet (the pods' controller-revision-hash).
	ControllerRevisionHash string `json:"controllerRevisionHash,omitempty"`
	// TemplateRevisionHash: LeaderWorkerSet.
	TemplateRevisionHash string `json:"templateRevisionHash,omitempty"`
	// RoleTemplateHashes: StormService, by role name.
	RoleTemplateHashes map[string]string `json:"roleTemplateHashes,omitempty"`
}

// Equal reports whether i and j name the same identity.
func (i Identity) Equal(j Identity) bool {
	a, _ := json.Marshal(i)
	b, _ := json.Marshal(j)
	return string(a) == string(b)
}

// IsZero reports whether i names nothing.
func (i Identity) IsZero() bool { return i.Equal(Identity{}) }

// String names the identity for a person, every part of it, in one way
// for plans, diffs, previews, logs and Events: "ReplicaSet web-6d9f8c7b5",
// "ControllerRevision llm-5c9f7d8b4, role decode role-template-hash
// 7f6c…". The pod-template-hash is the ReplicaSet name's suffix and is not
// repeated. The zero Identity is "".
func (i Identity) String() string {
	var parts []string
	if i.ReplicaSetName != "" {
		parts = append(parts, "ReplicaSet "+i.ReplicaSetName)
	} else if i.PodTemplateHash != "" {
		parts = append(parts, "pod-template-hash "+i.PodTemplateHash)
	}
	if i.ControllerRevisionName != "" {
		parts = append(parts, "ControllerRevision "+i.ControllerRevisionName)
	}
	if i.ControllerRevisionHash != "" {
		parts = append(parts, "controller-revision-hash "+i.ControllerRevisionHash)
	}
	if i.TemplateRevisionHash != "" {
		parts = append(parts, "template-revision-hash "+i.TemplateRevisionHash)
	}
	roles := make([]string, 0, len(i.RoleTemplateHashes))
	for role := range i.RoleTemplateHashes {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
		parts = append(parts, "role "+role+" role-template-hash "+i.RoleTemplateHashes[role])
	}
	return strings.Join(parts, ", ")
}

// Describe names a predicted identity for a person, marked unverified
// with the reason when roleout cannot vouch for it: "ReplicaSet
// web-6d9f8c7b5", "ReplicaSet web-6d9f8c7b5, unverified: …", "no
// prediction, unverified: …".
func (i Identity) Describe(unverified string) string {
	switch {
	case unverified == "":
		return i.String()
	case i.IsZero():
		return "no prediction, unverified: " + unverified
	default:
		return i.String() + ", unverified: " + unverified
	}
}
