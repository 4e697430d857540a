package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
)

// FieldManager is the field manager of the CLI's writes to the control
// ConfigMap.
const FieldManager = "roleout-cli"

// Namespace returns the namespace of cfg's control ConfigMap: the
// agent's namespace, where it keeps its role revisions and mask key
// (status.clusterRevisions.namespace, else the namespace the agent runs
// in, else default).
func Namespace(cfg *config.Config) string { return cfg.Status.ClusterRevisions.AgentNamespace() }

// kubeSource is the Source of a cluster: the ConfigMap ConfigMapName in
// namespace.
type kubeSource struct {
	kube      kubernetes.Interface
	namespace string
	log       logrus.FieldLogger
}

func (k kubeSource) Get(ctx context.Context) (*corev1.ConfigMap, error) {
	cm, err := k.kube.CoreV1().ConfigMaps(k.namespace).Get(ctx, ConfigMapName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, k.readError("get", err)
	}
	return cm, nil
}

// Watch runs an informer on the one ConfigMap (a field selector on its
// name, so RBAC may grant list and watch by resourceNames), with no
// resync: idle, it makes no request.
func (k kubeSource) Watch(ctx context.Context, changed func(*corev1.ConfigMap)) func() bool {
	inf := coreinformers.NewFilteredConfigMapInformer(k.kube, k.namespace, 0, cache.Indexers{}, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", ConfigMapName).String()
	})
	deliver := func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == ConfigMapName {
			changed(cm)
		}
	}
	_ = inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
		log := k.log.WithError(k.readError("watch", err))
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			log.Debug("watch of the control ConfigMap closed; watching again")
			return
		}
		log.Warn("watch of the control ConfigMap failed; retrying (until it works, each poll reads it once)")
	})
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    deliver,
		UpdateFunc: func(_, obj any) { deliver(obj) },
		DeleteFunc: func(any) { changed(nil) },
	})
	if err != nil {
		return func() bool { return false }
	}
	go inf.RunWithContext(ctx)
	return reg.HasSynced
}

// Kube returns the Source of the control ConfigMap in namespace of the
// cluster kube reaches, logging watch trouble to log.
func Kube(kube kubernetes.Interface, namespace string, log logrus.FieldLogger) Source {
	return kubeSource{kube: kube, namespace: namespace, log: log}
}

// readError explains a failed read of the control ConfigMap by the agent.
func (k kubeSource) readError(verb string, err error) error {
	where := fmt.Sprintf("ConfigMap %s/%s", k.namespace, ConfigMapName)
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%s: %s forbidden: the agent needs get, list and watch on configmaps named %s in namespace %s (roleout suspend, resume and reconcile write it): %w",
			where, verb, ConfigMapName, k.namespace, err)
	}
	return fmt.Errorf("%s: %s: %w", where, verb, err)
}

// Read returns what the control ConfigMap in namespace says of
// app; nothing when it does not exist.
func Read(ctx context.Context, kube kubernetes.Interface, namespace, app string) (App, error) {
	cm, err := kube.CoreV1().ConfigMaps(namespace).Get(ctx, ConfigMapName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return App{App: app}, nil
	}
	if err != nil {
		return App{}, writeError("get", namespace, err)
	}
	return Of(cm.Data, app), nil
}

// Suspend records in the control ConfigMap in namespace that app is
// suspended, by who at at: every agent of the install then applies and
// heals nothing of it, and stops a rollout under way after its current
// wave. An app already suspended keeps who suspended it first.
func Suspend(ctx context.Context, kube kubernetes.Interface, namespace, app, who string, at time.Time) (App, error) {
	return update(ctx, kube, namespace, app, func(data map[string]string) bool {
		if data[app+"."+controlSuspended] == "true" {
			return false
		}
		data[app+"."+controlSuspended] = "true"
		data[app+"."+controlSuspendedAt] = at.UTC().Format(time.RFC3339)
		delete(data, app+"."+controlSuspendedBy)
		if who != "" {
			data[app+"."+controlSuspendedBy] = who
		}
		return true
	})
}

// Resume ends what holds app in the control ConfigMap in namespace, one
// thing at a time: its suspension when it is suspended, else its rollback
// request (the agent then rolls git's version of the role out again). The
// agents poll at once. Lifted in the result says which it ended.
func Resume(ctx context.Context, kube kubernetes.Interface, namespace, app string) (App, error) {
	lifted := ""
	c, err := update(ctx, kube, namespace, app, func(data map[string]string) bool {
		lifted = ""
		keys := []string{controlSuspended, controlSuspendedBy, controlSuspendedAt}
		if data[app+"."+controlSuspended] == "true" {
			lifted = "suspension"
		} else if data[app+"."+rollbackRole] != "" {
			lifted, keys = "rollback", rollbackKeys
		}
		changed := false
		for _, k := range keys {
			if _, ok := data[app+"."+k]; ok {
				delete(data, app+"."+k)
				changed = true
			}
		}
		return changed
	})
	c.Lifted = lifted
	return c, err
}

// RequestRollback records in the control ConfigMap in namespace a request,
// by who at at, to put role of app back at its recorded revision n; it
// replaces an earlier request. The agent that serves the app carries it
// out through the app's gates (suspension, paused, windows) and holds
// the role there until a commit changes the role or Resume ends it.
func RequestRollback(ctx context.Context, kube kubernetes.Interface, namespace, app, role string, n int64, who string, at time.Time) (App, error) {
	return update(ctx, kube, namespace, app, func(data map[string]string) bool {
		data[app+"."+rollbackRole] = role
		data[app+"."+rollbackTo] = strconv.FormatInt(n, 10)
		data[app+"."+rollbackAt] = at.UTC().Format(time.RFC3339Nano)
		delete(data, app+"."+rollbackBy)
		if who != "" {
			data[app+"."+rollbackBy] = who
		}
		return true
	})
}

// RequestReconcile records in the control ConfigMap in namespace a
// request, at at, to reconcile app now: the running agents poll at once.
func RequestReconcile(ctx context.Context, kube kubernetes.Interface, namespace, app string, at time.Time) (App, error) {
	return update(ctx, kube, namespace, app, func(data map[string]string) bool {
		data[app+"."+controlRequestedAt] = at.UTC().Format(time.RFC3339Nano)
		return true
	})
}

// update applies change (which reports whether it changed
// anything) to the control ConfigMap's data, creating the ConfigMap when
// absent, and retries when another writer got there first.
func update(ctx context.Context, kube kubernetes.Interface, namespace, app string, change func(map[string]string) bool) (App, error) {
	cms := kube.CoreV1().ConfigMaps(namespace)
	for attempt := 1; ; attempt++ {
		retry := attempt < 5
		cm, err := cms.Get(ctx, ConfigMapName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			data := map[string]string{}
			if !change(data) {
				return Of(data, app), nil
			}
			_, err = cms.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: namespace, Labels: map[string]string{"app.kubernetes.io/managed-by": "roleout"}},
				Data:       data,
			}, metav1.CreateOptions{FieldManager: FieldManager})
			if apierrors.IsAlreadyExists(err) && retry {
				continue
			}
			if err != nil {
				return App{}, writeError("create", namespace, err)
			}
			return Of(data, app), nil
		}
		if err != nil {
			return App{}, writeError("get", namespace, err)
		}
		if owner := cm.Labels[object.AppLabel]; owner != "" {
			return App{}, fmt.Errorf("ConfigMap %s/%s carries %s=%s: it was applied from git by that app, and the agents ignore it; remove it from the app and delete it, then try again",
				namespace, ConfigMapName, object.AppLabel, owner)
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		if !change(cm.Data) {
			return Of(cm.Data, app), nil
		}
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: FieldManager})
		if apierrors.IsConflict(err) && retry {
			continue
		}
		if err != nil {
			return App{}, writeError("update", namespace, err)
		}
		return Of(cm.Data, app), nil
	}
}

// writeError explains a failed read or write of the control ConfigMap by
// roleout suspend, resume or reconcile.
func writeError(verb, namespace string, err error) error {
	where := fmt.Sprintf("ConfigMap %s/%s", namespace, ConfigMapName)
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: %s forbidden: this command needs get and update on configmaps named %s in namespace %s, and create there the first time (create cannot be limited by name): %w",
			where, verb, ConfigMapName, namespace, err)
	case verb == "create" && apierrors.IsNotFound(err):
		return fmt.Errorf("%s: namespace %s does not exist: it must be the agent's namespace (status.clusterRevisions.namespace in the config, or --namespace): %w", where, namespace, err)
	}
	return fmt.Errorf("%s: %s: %w", where, verb, err)
}
