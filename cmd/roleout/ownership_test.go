package main

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/internal/testcluster"
	"github.com/roleout/roleout/internal/testgit"
	"github.com/roleout/roleout/status"
)

// ownDeployment is a Deployment own-web/own-api running image.
func ownDeployment(image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: own-api, namespace: own-web}
spec:
  replicas: 1
  selector: {matchLabels: {app: own-api}}
  template:
    metadata: {labels: {app: own-api}}
    spec:
      containers: [{name: api, image: "` + image + `"}]
`
}

// ownKinds allows the kinds the ownership tests declare, CRDs among them.
const ownKinds = `[{group: "", kind: "*"}, {group: apps, kind: "*"}, {group: apiextensions.k8s.io, kind: CustomResourceDefinition}]`

const (
	ownForeignNamespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: own-foreign}\n"
	ownForeignCRD       = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`
)

// commitOverlay commits an overlay at apps/<app> of the given files.
func commitOverlay(t *testing.T, repo *testgit.Repo, app, msg string, files map[string]string) {
	t.Helper()
	all := map[string]string{}
	names := []string{}
	for name, content := range files {
		all["apps/"+app+"/"+name] = content
		names = append(names, name)
	}
	kust, _ := yaml.Marshal(map[string]any{"resources": names})
	all["apps/"+app+"/kustomization.yaml"] = string(kust)
	if _, err := repo.Commit("main", msg, all); err != nil {
		t.Fatal(err)
	}
}

// TestRunOwnership has app thief declare a Namespace and a CRD created
// outside roleout and app web-own's Deployment, then drop them from git:
// the rollout is refused before anything is written, naming each owner,
// and the prune that follows deletes nothing. With adopt: true the
// take-over works; a Namespace and a CRD the app then removes stay
// (prunePersistent is off) while the adopted Deployment is pruned.
func TestRunOwnership(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "own-foreign"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(ownForeignCRD), &crd.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "ownership")
	commitOverlay(t, repo, "web-own", "web-own", map[string]string{
		"ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: own-web}\n", "api.yaml": ownDeployment("web:1.0"),
	})
	thiefFiles := map[string]string{
		"ns.yaml": ownForeignNamespace, "crd.yaml": ownForeignCRD, "api.yaml": ownDeployment("thief:6.6"),
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: thief-settings, namespace: default}\n",
	}
	commitOverlay(t, repo, "thief", "thief takes", thiefFiles)
	apps := "- {name: web-own, path: apps/web-own, prune: true}\n" +
		"- {name: thief, path: apps/thief, prune: true, timeout: 30s, allowedNamespaces: [own-foreign, own-web], allowedKinds: " + ownKinds + "%s}\n"
	// web-own first and alone: apps of one run roll out concurrently.
	runApp(t, writeConfig(t, repo.URL(), strings.SplitAfter(apps, "\n")[0]), exitOK)
	config := writeConfig(t, repo.URL(), strings.Replace(apps, "%s", "", 1))

	// untouched checks that the objects thief declared are there and not
	// thief's.
	untouched := func(t *testing.T) {
		t.Helper()
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "own-foreign", metav1.GetOptions{})
		if err != nil || ns.Labels[object.AppLabel] != "" || ns.DeletionTimestamp != nil {
			t.Errorf("Namespace own-foreign: %v, labels %v; want it there, untouched", err, ns.Labels)
		}
		got, err := crds.Get(ctx, "gadgets.example.com", metav1.GetOptions{})
		if err != nil || got.GetLabels()[object.AppLabel] != "" || got.GetDeletionTimestamp() != nil {
			t.Errorf("CRD gadgets.example.com: %v; want it there, untouched", err)
		}
		dep, err := cs.AppsV1().Deployments("own-web").Get(ctx, "own-api", metav1.GetOptions{})
		if err != nil || dep.Labels[object.AppLabel] != "web-own" || dep.Spec.Template.Spec.Containers[0].Image != "web:1.0" {
			t.Errorf("Deployment own-web/own-api: %v; want web-own's, image web:1.0", err)
		}
	}

	t.Run("declaring others' objects is refused as a whole", func(t *testing.T) {
		logs := runApp(t, config, exitError)
		for _, want := range []string{
			`Namespace/own-foreign: exists without roleout's ownership (no label roleout.dev/app); apps[1].adopt: true`,
			`CustomResourceDefinition/gadgets.example.com: exists without roleout's ownership`,
			`Deployment/own-web/own-api: owned by app web-own (label roleout.dev/app=web-own); apps[1].adopt: true`,
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("logs lack %q:\n%s", want, logs)
			}
			if st := readStatus(t, repo, "thief"); st.Phase != status.PhaseFailed || !strings.Contains(st.Message, want) {
				t.Errorf("thief's status %s %q lacks %q", st.Phase, st.Message, want)
			}
		}
		untouched(t)
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "thief-settings", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("thief-settings was applied although the rollout was refused: %v", err)
		}
	})

	t.Run("the prune after it deletes nothing", func(t *testing.T) {
		commitOverlay(t, repo, "thief", "thief lets go", map[string]string{"cm.yaml": thiefFiles["cm.yaml"]})
		logs := runApp(t, config, exitOK)
		if n := strings.Count(logs, "prune skipped: not labelled roleout.dev/app=thief"); n != 3 {
			t.Errorf("%d prunes skipped as not thief's, want 3:\n%s", n, logs)
		}
		untouched(t)
	})

	t.Run("adopt takes them over", func(t *testing.T) {
		commitOverlay(t, repo, "thief", "thief takes again", thiefFiles)
		adopting := writeConfig(t, repo.URL(), strings.Replace(apps, "%s", ", adopt: true, force: true", 1))
		runApp(t, adopting, exitOK)
		dep, err := cs.AppsV1().Deployments("own-web").Get(ctx, "own-api", metav1.GetOptions{})
		if err != nil || dep.Labels[object.AppLabel] != "thief" || dep.Spec.Template.Spec.Containers[0].Image != "thief:6.6" {
			t.Errorf("adopted Deployment: %v %v; want thief's, image thief:6.6", err, dep.Labels)
		}
		for _, name := range []string{"own-foreign"} {
			if ns, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{}); err != nil || ns.Labels[object.AppLabel] != "thief" {
				t.Errorf("adopted Namespace %s: %v %v", name, err, ns.Labels)
			}
		}

		// Removed from git, the adopted Deployment is pruned; the
		// Namespace and the CRD are persistent kinds and stay.
		commitOverlay(t, repo, "thief", "thief lets go again", map[string]string{"cm.yaml": thiefFiles["cm.yaml"]})
		logs := runApp(t, adopting, exitOK)
		for _, want := range []string{
			`prune skipped: a Namespace is not pruned unless the app opts in (set apps[1].prunePersistent: true or annotate it roleout.dev/prune: \"true\" and list that annotation in apps[1].allowedAnnotations)`,
			`prune skipped: a CustomResourceDefinition is not pruned`,
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("logs lack %q:\n%s", want, logs)
			}
		}
		if _, err := cs.AppsV1().Deployments("own-web").Get(ctx, "own-api", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the adopted Deployment left git but is still there: %v", err)
		}
		if ns, err := cs.CoreV1().Namespaces().Get(ctx, "own-foreign", metav1.GetOptions{}); err != nil || ns.DeletionTimestamp != nil {
			t.Errorf("Namespace own-foreign was pruned: %v", err)
		}
		if got, err := crds.Get(ctx, "gadgets.example.com", metav1.GetOptions{}); err != nil || got.GetDeletionTimestamp() != nil {
			t.Errorf("CRD gadgets.example.com was pruned: %v", err)
		}
	})
}

// TestRunPrunePersistent has an app apply a Namespace, a CRD and a PVC
// and then remove them from git: they stay, with the reason logged,
// until the app sets prunePersistent: true.
func TestRunPrunePersistent(t *testing.T) {
	t.Parallel()
	cs, err := kubernetes.NewForConfig(testcluster.Require(t, cluster).Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The claim binds to this volume: kstatus waits for Bound.
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "keeper-data"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/keeper-data"}},
			ClaimRef:               &corev1.ObjectReference{Namespace: "keeper", Name: "data"},
		},
	}
	if _, err := cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	repo := testgit.New(t, testgit.Options{}).MustRepo(t, "keeper")
	files := map[string]string{
		"ns.yaml":  "apiVersion: v1\nkind: Namespace\nmetadata: {name: keeper}\n",
		"crd.yaml": strings.NewReplacer("gadgets", "keepers", "gadget", "keeper", "Gadget", "Keeper").Replace(ownForeignCRD),
		"pvc.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: keeper}\nspec: {accessModes: [ReadWriteOnce], storageClassName: \"\", volumeName: keeper-data, resources: {requests: {storage: 1Gi}}}\n",
		"cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keeper-settings, namespace: keeper}\n",
	}
	exist := func(t *testing.T) map[string]bool {
		t.Helper()
		dyn, err := dynamic.NewForConfig(cluster.Config)
		if err != nil {
			t.Fatal(err)
		}
		crd, err := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}).
			Get(ctx, "keepers.example.com", metav1.GetOptions{})
		crdThere := err == nil && crd.GetDeletionTimestamp() == nil
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "keeper", metav1.GetOptions{})
		nsThere := err == nil && ns.DeletionTimestamp == nil
		pvc, err := cs.CoreV1().PersistentVolumeClaims("keeper").Get(ctx, "data", metav1.GetOptions{})
		pvcThere := err == nil && pvc.DeletionTimestamp == nil
		return map[string]bool{"Namespace": nsThere, "CustomResourceDefinition": crdThere, "PersistentVolumeClaim": pvcThere}
	}
	all := map[string]bool{"Namespace": true, "CustomResourceDefinition": true, "PersistentVolumeClaim": true}
	none := map[string]bool{"Namespace": false, "CustomResourceDefinition": false, "PersistentVolumeClaim": false}
	apps := "- {name: keeper, path: apps/keeper, prune: true, allowEmpty: true, timeout: 40s, allowedKinds: " + ownKinds + "%s}\n"
	cases := []struct {
		name, extra string
		want        map[string]bool
		wantLog     string
	}{
		{"kept by default", "", all, `prune skipped: a PersistentVolumeClaim is not pruned unless the app opts in (set apps[0].prunePersistent: true`},
		{"pruned with prunePersistent", ", prunePersistent: true", none, "msg=pruned app=keeper"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			config := writeConfig(t, repo.URL(), strings.Replace(apps, "%s", tc.extra, 1))
			commitOverlay(t, repo, "keeper", "keeper "+tc.name, files)
			runApp(t, config, exitOK)
			if got := exist(t); !got["Namespace"] || !got["CustomResourceDefinition"] || !got["PersistentVolumeClaim"] {
				t.Fatalf("after the install: %v, want all there", got)
			}
			commitOverlay(t, repo, "keeper", "keeper removes all "+tc.name, map[string]string{})
			logs := runApp(t, config, exitOK)
			if !strings.Contains(logs, tc.wantLog) {
				t.Errorf("logs lack %q:\n%s", tc.wantLog, logs)
			}
			got := exist(t)
			for kind, want := range tc.want {
				if got[kind] != want {
					t.Errorf("%s exists = %v, want %v", kind, got[kind], want)
				}
			}
		})
	}
}
