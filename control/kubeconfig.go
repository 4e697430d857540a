package control

import (
	"context"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/roleout/roleout/config"
)

// KubeconfigSecret returns the kubeconfig in the Secret key ref names, read
// from the agent's cluster (kube), and where it was, for messages. A ref
// without a namespace is in the agent's own.
func KubeconfigSecret(ctx context.Context, kube kubernetes.Interface, ref config.SecretKeyRef) ([]byte, string, error) {
	ns := ref.Namespace
	if ns == "" {
		b, err := os.ReadFile(config.ServiceAccountNamespaceFile)
		if err != nil {
			return nil, "", fmt.Errorf("kubeconfigSecret %s names no namespace and the agent is not running in a pod: set kubeconfigSecret.namespace", ref.Name)
		}
		ns = strings.TrimSpace(string(b))
	}
	key := ref.Key
	if key == "" {
		key = "value"
	}
	where := fmt.Sprintf("Secret %s/%s key %q", ns, ref.Name, key)
	s, err := kube.CoreV1().Secrets(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("read the kubeconfig from %s: %w", where, err)
	}
	data, ok := s.Data[key]
	if !ok || len(data) == 0 {
		return nil, "", fmt.Errorf("%s is missing or empty: put the cluster's kubeconfig there", where)
	}
	return data, where, nil
}

// ClientConfig builds the client configuration of a kubeconfig read from
// a Secret (where, for messages), checking the raw kubeconfig first so
// that nothing unsafe in it is ever used (config.CheckKubeconfig), unless
// allowUnsafe (clusters.allowUnsafeKubeconfigs).
func ClientConfig(data []byte, where string, allowUnsafe bool) (*rest.Config, error) {
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig in %s: %w", where, err)
	}
	if !allowUnsafe {
		if err := config.CheckKubeconfig(raw); err != nil {
			return nil, fmt.Errorf("kubeconfigSecret (%s): %w", where, err)
		}
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*raw, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig in %s: %w", where, err)
	}
	return cfg, nil
}
