// Package workloadgen makes random Deployments, StatefulSets and
// DaemonSets for the tests that hold roleout's predictions equal to the
// controllers': pod templates that reach the API server's defaulting
// (probes, ports, volumes, pull policies, resources in every notation,
// empty maps and lists) in many combinations. The same seed makes the
// same workloads.
package workloadgen

import (
	"fmt"
	"math/rand/v2"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Kinds are the kinds Workloads makes, in turn.
var Kinds = []string{"Deployment", "StatefulSet", "DaemonSet"}

// Workloads returns n workloads in namespace ns, made from seed: the i-th
// is of kind Kinds[i%3], named <kind>-<i>.
func Workloads(seed uint64, n int, ns string) []*unstructured.Unstructured {
	g := gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	out := make([]*unstructured.Unstructured, 0, n)
	for i := range n {
		out = append(out, g.workload(Kinds[i%len(Kinds)], fmt.Sprintf("w%d", i), ns))
	}
	return out
}

type gen struct{ r *rand.Rand }

func (g gen) chance(p float64) bool { return g.r.Float64() < p }

func (g gen) pick(xs ...any) any { return xs[g.r.IntN(len(xs))] }

func (g gen) workload(kind, suffix, ns string) *unstructured.Unstructured {
	name := map[string]string{"Deployment": "deployment", "StatefulSet": "statefulset", "DaemonSet": "daemonset"}[kind] + "-" + suffix
	labels := map[string]any{"app": name}
	if g.chance(0.5) {
		labels["tier"] = g.pick("web", "db", "cache")
	}
	meta := map[string]any{"labels": labels}
	if g.chance(0.3) {
		meta["annotations"] = map[string]any{}
	} else if g.chance(0.3) {
		meta["annotations"] = map[string]any{"example.com/rev": fmt.Sprint(g.r.IntN(100))}
	}
	spec := map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
		"template": map[string]any{"metadata": meta, "spec": g.podSpec()},
	}
	switch kind {
	case "Deployment":
		spec["replicas"] = int64(g.r.IntN(3))
		if g.chance(0.3) {
			spec["strategy"] = map[string]any{"type": "Recreate"}
		}
	case "StatefulSet":
		spec["replicas"], spec["serviceName"] = int64(g.r.IntN(3)), name
		if g.chance(0.3) {
			spec["podManagementPolicy"] = "Parallel"
		}
	case "DaemonSet":
		if g.chance(0.3) {
			spec["updateStrategy"] = map[string]any{"type": "OnDelete"}
		}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}
}

func (g gen) podSpec() map[string]any {
	var containers []any
	for i := range 1 + g.r.IntN(3) {
		containers = append(containers, g.container(fmt.Sprintf("c%d", i)))
	}
	spec := map[string]any{"containers": containers}
	if g.chance(0.3) {
		init := g.container("init")
		if g.chance(0.5) {
			init["restartPolicy"] = "Always" // a sidecar
		} else {
			delete(init, "readinessProbe") // only sidecars may have them
			delete(init, "livenessProbe")
		}
		spec["initContainers"] = []any{init}
	}
	if g.chance(0.3) {
		spec["terminationGracePeriodSeconds"] = int64(g.r.IntN(60))
	}
	if g.chance(0.2) {
		spec["dnsPolicy"] = g.pick("ClusterFirst", "Default", "None")
		if spec["dnsPolicy"] == "None" {
			spec["dnsConfig"] = map[string]any{"nameservers": []any{"10.0.0.10"}}
		}
	}
	if g.chance(0.3) {
		spec["securityContext"] = g.pick(map[string]any{}, map[string]any{"runAsNonRoot": true, "fsGroup": int64(2000)},
			map[string]any{"seccompProfile": map[string]any{"type": "RuntimeDefault"}})
	}
	if g.chance(0.3) {
		spec["tolerations"] = []any{map[string]any{"key": "dedicated", "operator": g.pick("Exists", "Equal"), "effect": "NoSchedule"}}
	}
	if g.chance(0.2) {
		spec["nodeSelector"] = map[string]any{"kubernetes.io/os": "linux"}
	}
	if g.chance(0.4) {
		spec["volumes"] = g.volumes()
	}
	if g.chance(0.2) {
		spec["serviceAccountName"] = "default"
	}
	if g.chance(0.15) {
		spec["hostNetwork"] = true
	}
	if g.chance(0.15) {
		spec["affinity"] = map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
			map[string]any{"weight": int64(1 + g.r.IntN(100)), "podAffinityTerm": map[string]any{"topologyKey": "kubernetes.io/hostname",
				"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "x"}}}}}}}
	}
	if g.chance(0.1) {
		spec["priority"] = int64(0)
	}
	return spec
}

func (g gen) container(name string) map[string]any {
	image := g.pick("nginx", "nginx:1.27", "busybox:latest", "registry.example.com/app@sha256:"+fmt.Sprintf("%064x", g.r.Uint64()), "redis:7").(string)
	c := map[string]any{"name": name, "image": image}
	if g.chance(0.3) {
		c["imagePullPolicy"] = g.pick("Always", "IfNotPresent", "Never")
	}
	if g.chance(0.5) {
		port := map[string]any{"containerPort": int64(1 + g.r.IntN(65534))}
		if g.chance(0.5) {
			port["protocol"] = g.pick("TCP", "UDP")
		}
		if g.chance(0.3) {
			port["name"] = "http"
		}
		c["ports"] = []any{port}
	}
	if g.chance(0.4) {
		c["env"] = []any{map[string]any{"name": "A", "value": fmt.Sprint(g.r.IntN(1000))},
			map[string]any{"name": "POD", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}}}
	}
	if g.chance(0.5) {
		c["resources"] = g.resources()
	}
	if g.chance(0.3) {
		c["readinessProbe"] = g.probe()
	}
	if g.chance(0.2) {
		c["livenessProbe"] = g.probe()
	}
	if g.chance(0.2) {
		c["command"] = []any{"sh", "-c", "sleep 3600"}
	}
	if g.chance(0.2) {
		c["securityContext"] = g.pick(map[string]any{"allowPrivilegeEscalation": false},
			map[string]any{"capabilities": map[string]any{"drop": []any{"ALL"}}}, map[string]any{"readOnlyRootFilesystem": true})
	}
	if g.chance(0.1) {
		c["args"] = []any{}
	}
	return c
}

func (g gen) resources() map[string]any {
	// Each list in ascending order, so that a limit at or after its
	// request is valid; each value in several notations.
	cpu := []string{"100m", "250m", "0.5", "500m", "1", "1000m", "2"}
	mem := []string{"64Mi", "128Mi", "500M", "0.5Gi", "1Gi", "1024Mi"}
	rc, rm := g.r.IntN(len(cpu)), g.r.IntN(len(mem))
	res := map[string]any{}
	requests := g.chance(0.7)
	if requests {
		res["requests"] = map[string]any{"cpu": cpu[rc], "memory": mem[rm]}
	} else {
		rc, rm = 0, 0
	}
	if g.chance(0.5) {
		res["limits"] = map[string]any{"cpu": cpu[rc+g.r.IntN(len(cpu)-rc)], "memory": mem[rm+g.r.IntN(len(mem)-rm)]}
	}
	return res
}

func (g gen) probe() map[string]any {
	p := map[string]any{}
	switch g.r.IntN(3) {
	case 0:
		p["httpGet"] = map[string]any{"path": "/healthz", "port": g.pick(int64(8080), "http")}
	case 1:
		p["tcpSocket"] = map[string]any{"port": int64(5432)}
	default:
		p["exec"] = map[string]any{"command": []any{"true"}}
	}
	if g.chance(0.5) {
		p["periodSeconds"] = int64(1 + g.r.IntN(30))
	}
	if g.chance(0.3) {
		p["initialDelaySeconds"] = int64(g.r.IntN(10))
	}
	return p
}

func (g gen) volumes() []any {
	switch g.r.IntN(4) {
	case 0:
		return []any{map[string]any{"name": "scratch", "emptyDir": map[string]any{}}}
	case 1:
		return []any{map[string]any{"name": "conf", "configMap": map[string]any{"name": "conf"}}}
	case 2:
		return []any{map[string]any{"name": "cache", "emptyDir": map[string]any{"medium": "Memory", "sizeLimit": g.pick("64Mi", "1Gi")}}}
	default:
		return []any{map[string]any{"name": "secret", "secret": map[string]any{"secretName": "s", "defaultMode": int64(0o400)}},
			map[string]any{"name": "host", "hostPath": map[string]any{"path": "/var/log"}}}
	}
}
