package control

import (
	"bytes"
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/secrets"
)

// MaskKeyField is the mask key Secret's data key.
const MaskKeyField = "key"

// LoadMasker returns the install's Masker for the agent: its key from
// masks.keyFile, or from the key Secret in namespace, created when
// absent.
func LoadMasker(ctx context.Context, cfg config.Masks, kube kubernetes.Interface, namespace string) (*secrets.Masker, error) {
	var key []byte
	if cfg.KeyFile != "" {
		data, err := os.ReadFile(cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("masks.keyFile: read the mask key: %w", err)
		}
		key = bytes.TrimRight(data, "\r\n")
	} else {
		var err error
		if key, err = ensureMaskKey(ctx, kube, namespace, cfg.KeySecretName()); err != nil {
			return nil, err
		}
	}
	m, err := secrets.NewMasker(key, cfg.Mode)
	if err != nil {
		return nil, fmt.Errorf("masks: %w", err)
	}
	return m, nil
}

// ReadMasker returns the install's Masker for a command that writes no git
// (roleout plan, roleout diff): its key from masks.keyFile, else from the
// key Secret when restCfg is not nil and the Secret exists (it is never
// created), else a random key for this command only, whose masks match no
// status branch (a role holding Secrets then shows as changed against the
// status in git).
func ReadMasker(ctx context.Context, cfg *config.Config, restCfg *rest.Config) (*secrets.Masker, error) {
	var kube kubernetes.Interface
	if restCfg != nil && cfg.Masks.KeyFile == "" {
		var err error
		if kube, err = kubernetes.NewForConfig(restCfg); err != nil {
			return nil, err
		}
	}
	return MaskerOf(ctx, cfg, kube)
}

// MaskerOf is ReadMasker on kube (nil: no cluster): the key from
// masks.keyFile, else from the key Secret when it exists, else a random
// key. A dry run reads the key so.
func MaskerOf(ctx context.Context, cfg *config.Config, kube kubernetes.Interface) (*secrets.Masker, error) {
	if cfg.Masks.KeyFile != "" {
		return LoadMasker(ctx, cfg.Masks, nil, "")
	}
	if kube == nil {
		return ephemeralMasker(cfg.Masks.Mode)
	}
	ns, name := cfg.Status.ClusterRevisions.AgentNamespace(), cfg.Masks.KeySecretName()
	s, err := kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil || len(s.Data[MaskKeyField]) == 0 {
		return ephemeralMasker(cfg.Masks.Mode)
	}
	m, err := secrets.NewMasker(s.Data[MaskKeyField], cfg.Masks.Mode)
	if err != nil {
		return nil, fmt.Errorf("masks: Secret/%s/%s: %w", ns, name, err)
	}
	return m, nil
}

// ephemeralMasker returns a Masker in mode with a random key.
func ephemeralMasker(mode secrets.Mode) (*secrets.Masker, error) {
	key, err := secrets.NewKey()
	if err != nil {
		return nil, err
	}
	return secrets.NewMasker(key, mode)
}

// ensureMaskKey returns the key in Secret namespace/name, creating the
// Secret with a new random key when it does not exist. Replicas that race
// to create it all end with the key of the one that won: a create that
// finds the Secret already there reads it.
func ensureMaskKey(ctx context.Context, kube kubernetes.Interface, namespace, name string) ([]byte, error) {
	where := "Secret/" + namespace + "/" + name
	s, err := kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		var key []byte
		if key, err = secrets.NewKey(); err != nil {
			return nil, err
		}
		s, err = kube.CoreV1().Secrets(namespace).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "roleout"}},
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{MaskKeyField: key},
		}, metav1.CreateOptions{FieldManager: "roleout"})
		if apierrors.IsAlreadyExists(err) {
			s, err = kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read or create the mask key (the agent needs get and create on Secrets in its namespace, or set masks.keyFile): %w", where, err)
	}
	key := s.Data[MaskKeyField]
	if len(key) == 0 {
		return nil, fmt.Errorf("%s: no data key %q: put a key of 32 random bytes there, or delete the Secret to have a new one made (existing masks then change)", where, MaskKeyField)
	}
	return key, nil
}
