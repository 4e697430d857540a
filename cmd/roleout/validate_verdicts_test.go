package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testobjects"
	"github.com/roleout/roleout/render/schema"
	"github.com/roleout/roleout/render/validate"
)

// TestValidatorAgreesWithTheAPIServer: every object of
// testdata/verdicts is validated offline (render/validate) and sent to
// the local control plane, run with --allow-privileged as kubeadm, kind,
// k3s and the managed clusters run kube-apiserver, as a server-side
// dry-run apply; the two verdicts agree on every object, and agree with
// the file the object is in (accept.yaml: privileged, host-namespace and
// host-path workloads; refuse.yaml: what the server refuses whatever its
// flags). A refusal names, offline, a field the server's answer names.
func TestValidatorAgreesWithTheAPIServer(t *testing.T) {
	t.Parallel()
	testcluster.Require(t, cluster)
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cluster.Config)
	ns := "verdicts"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// A Pod is admitted only once its namespace's default ServiceAccount
	// exists (the ServiceAccount admission plugin).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("ServiceAccount %s/default: %v", ns, err)
		}
	}
	dyn := dynamic.NewForConfigOrDie(cluster.Config)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cluster.Config)))
	for _, verdict := range []string{"accept", "refuse"} {
		for _, o := range testobjects.Read(t, filepath.Join("testdata", "verdicts", verdict+".yaml")) {
			o.SetNamespace(ns)
			name := fmt.Sprintf("%s/%s %s", verdict, o.GetKind(), o.GetName())
			t.Run(name, func(t *testing.T) {
				offline, err := validate.Validate(o, schema.Sources{})
				if err != nil || offline.Schema != schema.SchemaBuiltin {
					t.Fatalf("offline: schema %q, %v; want the built-in kind validated", offline.Schema, err)
				}
				server := serverDryRun(ctx, t, dyn, mapper, o)
				offlineOK, serverOK := len(offline.Errors) == 0, server == nil
				if offlineOK != serverOK {
					t.Fatalf("offline accepts: %v (%v); kube-apiserver accepts: %v (%v)", offlineOK, offline.Errors, serverOK, server)
				}
				if serverOK != (verdict == "accept") {
					t.Fatalf("kube-apiserver accepts: %v (%v); the corpus says %s", serverOK, server, verdict)
				}
				if !serverOK && !namesAField(offline.Errors, server.Error()) {
					t.Errorf("offline refuses for %v; kube-apiserver for another field: %v", offline.Errors, server)
				}
			})
		}
	}
}

// serverDryRun is the API server's answer to a server-side apply of o
// that writes nothing.
func serverDryRun(ctx context.Context, t *testing.T, dyn dynamic.Interface, mapper meta.RESTMapper, o *unstructured.Unstructured) error {
	t.Helper()
	gvk := o.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatal(err)
	}
	_, err = dyn.Resource(m.Resource).Namespace(o.GetNamespace()).Apply(ctx, o.GetName(), o,
		metav1.ApplyOptions{FieldManager: "verdicts", DryRun: []string{metav1.DryRunAll}})
	if err != nil && !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		t.Fatalf("dry run of %s %s: not a validation error: %v", o.GetKind(), o.GetName(), err)
	}
	return err
}

// namesAField reports whether the server's message names the field of
// one of errs (the last element of its path, which both print alike).
func namesAField(errs []validate.FieldError, server string) bool {
	for _, e := range errs {
		f := e.Field
		if i := strings.LastIndexAny(f, ".]"); i >= 0 && i < len(f)-1 {
			f = f[i+1:]
		}
		if f == "" || strings.Contains(server, f) {
			return true
		}
	}
	return false
}

// TestPlanPrivilegedWorkloads: `roleout plan` of a directory of
// privileged and host-namespace workloads (testdata/verdicts/accept.yaml,
// which the local control plane accepts: the test above) plans them all,
// offline.
func TestPlanPrivilegedWorkloads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "verdicts", "accept.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"kustomization.yaml": []byte("namespace: nodes\nresources: [workloads.yaml]\n"),
		"workloads.yaml":     data,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := planJSON(t, "plan", dir)
	planned := map[string]bool{}
	for _, w := range s.Waves {
		for _, r := range w.Roles {
			for _, o := range r.Objects {
				planned[o.Kind+"/"+o.Name] = true
			}
		}
	}
	for _, o := range testobjects.Read(t, filepath.Join("testdata", "verdicts", "accept.yaml")) {
		if !planned[o.GetKind()+"/"+o.GetName()] {
			t.Errorf("%s/%s is not in the plan: %v", o.GetKind(), o.GetName(), planned)
		}
	}
}
