package control

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// StatusAnchorName is the ConfigMap, in the agent's namespace, that keeps
// the last status head each agent wrote (docs/design.md, "Safety and
// trust": the status branch is anchored). Only the agent writes it.
const StatusAnchorName = "roleout-status-anchor"

// Anchor is the anchor of one status branch (a sources.StatusAnchor) in
// the ConfigMap StatusAnchorName: one key per repository and status
// branch, so that agents of other repositories in the same namespace keep
// their own.
type Anchor struct {
	kube      kubernetes.Interface
	namespace string
	key       string
}

// NewAnchor returns the anchor of a status branch, under key (the agent
// derives it from the repository and branch), in namespace.
func NewAnchor(kube kubernetes.Interface, namespace, key string) Anchor {
	return Anchor{kube: kube, namespace: namespace, key: key}
}

// Get reads the anchored commit; "" when none is.
func (a Anchor) Get(ctx context.Context) (string, error) {
	cm, err := a.kube.CoreV1().ConfigMaps(a.namespace).Get(ctx, StatusAnchorName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return cm.Data[a.key], nil
}

// Set writes commit under the anchor's key with a merge patch, creating
// the ConfigMap the first time.
func (a Anchor) Set(ctx context.Context, commit string) error {
	patch, err := json.Marshal(map[string]any{"data": map[string]string{a.key: commit}})
	if err != nil {
		return err
	}
	cms := a.kube.CoreV1().ConfigMaps(a.namespace)
	_, err = cms.Patch(ctx, StatusAnchorName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "roleout"})
	if !apierrors.IsNotFound(err) {
		return err
	}
	_, err = cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: StatusAnchorName, Namespace: a.namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "roleout"}},
		Data:       map[string]string{a.key: commit},
	}, metav1.CreateOptions{FieldManager: "roleout"})
	if apierrors.IsAlreadyExists(err) { // another replica made it meanwhile
		_, err = cms.Patch(ctx, StatusAnchorName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "roleout"})
	}
	return err
}
