package order

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// podSpec is one pod template found in an object: its spec and the
// labels its pods get.
type podSpec struct {
	spec   map[string]any
	labels map[string]string
}

// maxDepth bounds the walk for pod templates: the deepest known (a
// StormService's roles, a CronJob's job template) are under ten levels.
const maxDepth = 12

// podSpecs returns the pod templates in o: every map under o whose spec
// has a list of containers, o itself for a Pod, at any depth up to
// maxDepth, so that custom kinds that embed a pod template are read as
// the built-in workloads are.
func podSpecs(o *unstructured.Unstructured) []podSpec {
	var out []podSpec
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > maxDepth {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			if spec, ok := t["spec"].(map[string]any); ok {
				if _, ok := spec["containers"].([]any); ok {
					labels, _, _ := unstructured.NestedStringMap(t, "metadata", "labels")
					out = append(out, podSpec{spec: spec, labels: labels})
					return
				}
			}
			keys := make([]string, 0, len(t))
			for k := range t {
				if k != "metadata" && k != "status" {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(t[k], depth+1)
			}
		case []any:
			for _, c := range t {
				walk(c, depth+1)
			}
		}
	}
	walk(o.Object, 0)
	return out
}

// serviceAccount is the ServiceAccount the pods run as.
func (p podSpec) serviceAccount() string {
	if sa, _ := p.spec["serviceAccountName"].(string); sa != "" {
		return sa
	}
	if sa, _ := p.spec["serviceAccount"].(string); sa != "" {
		return sa
	}
	return "default"
}

// podRef is an object a pod refers to by name.
type podRef struct {
	kind, name string
	// verb says how: "mounts", "reads", "pulls images with".
	verb string
}

// refs returns what the pods refer to that they cannot start without:
// ConfigMaps, Secrets and claims of volumes, envFrom and env, and
// imagePullSecrets; references marked optional are left out.
func (p podSpec) refs() []podRef {
	var out []podRef
	add := func(kind, name, verb string, m map[string]any) {
		if opt, _ := m["optional"].(bool); !opt && name != "" {
			out = append(out, podRef{kind, name, verb})
		}
	}
	volumes, _, _ := unstructured.NestedSlice(p.spec, "volumes")
	for _, v := range volumes {
		vm, _ := v.(map[string]any)
		if cm, ok := vm["configMap"].(map[string]any); ok {
			name, _ := cm["name"].(string)
			add("ConfigMap", name, "mounts", cm)
		}
		if s, ok := vm["secret"].(map[string]any); ok {
			name, _ := s["secretName"].(string)
			add("Secret", name, "mounts", s)
		}
		if c, ok := vm["persistentVolumeClaim"].(map[string]any); ok {
			name, _ := c["claimName"].(string)
			add("PersistentVolumeClaim", name, "mounts", map[string]any{})
		}
		sources, _, _ := unstructured.NestedSlice(vm, "projected", "sources")
		for _, s := range sources {
			sm, _ := s.(map[string]any)
			if cm, ok := sm["configMap"].(map[string]any); ok {
				name, _ := cm["name"].(string)
				add("ConfigMap", name, "mounts", cm)
			}
			if sec, ok := sm["secret"].(map[string]any); ok {
				name, _ := sec["name"].(string)
				add("Secret", name, "mounts", sec)
			}
		}
	}
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		containers, _, _ := unstructured.NestedSlice(p.spec, list)
		for _, c := range containers {
			cm, _ := c.(map[string]any)
			envFrom, _, _ := unstructured.NestedSlice(cm, "envFrom")
			for _, e := range envFrom {
				em, _ := e.(map[string]any)
				if r, ok := em["configMapRef"].(map[string]any); ok {
					name, _ := r["name"].(string)
					add("ConfigMap", name, "reads", r)
				}
				if r, ok := em["secretRef"].(map[string]any); ok {
					name, _ := r["name"].(string)
					add("Secret", name, "reads", r)
				}
			}
			env, _, _ := unstructured.NestedSlice(cm, "env")
			for _, e := range env {
				em, _ := e.(map[string]any)
				if r, ok, _ := unstructured.NestedMap(em, "valueFrom", "configMapKeyRef"); ok {
					name, _ := r["name"].(string)
					add("ConfigMap", name, "reads", r)
				}
				if r, ok, _ := unstructured.NestedMap(em, "valueFrom", "secretKeyRef"); ok {
					name, _ := r["name"].(string)
					add("Secret", name, "reads", r)
				}
			}
		}
	}
	pulls, _, _ := unstructured.NestedSlice(p.spec, "imagePullSecrets")
	for _, s := range pulls {
		sm, _ := s.(map[string]any)
		name, _ := sm["name"].(string)
		add("Secret", name, "pulls images with", map[string]any{})
	}
	return out
}
