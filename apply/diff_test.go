package apply

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/internal/secrets"
	"github.com/roleout/roleout/model"
)

func TestDiffDryRun(t *testing.T) {
	a := newApplier(t)
	a.opts.Masker = secrets.Ephemeral()
	ctx := context.Background()
	cm := func(v string) *unstructured.Unstructured {
		return obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: diffed, namespace: default}\ndata: {level: '"+v+"'}\n")
	}
	secret := func(v string) *unstructured.Unstructured {
		return obj(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: diffed, namespace: default}\nstringData: {password: '"+v+"'}\n")
	}
	same := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: same, namespace: default}\ndata: {a: '1'}\n")
	opts := ApplyOptions{Labels: map[string]string{"roleout.dev/app": "diff"}}
	if _, err := a.Apply(ctx, []*unstructured.Unstructured{cm("info"), secret("old-Pa55word"), same}, opts); err != nil {
		t.Fatal(err)
	}
	cs := clientset(t)
	before, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "diffed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fresh := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: brand-new, namespace: default}\n")
	pending := obj(t, "apiVersion: pending.example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: default}\n")
	diffs, err := a.Diff(ctx, []*unstructured.Unstructured{cm("debug"), secret("new-Pa55word"), same, fresh, pending}, DiffOptions{
		ApplyOptions: opts, PendingKinds: map[schema.GroupKind]bool{{Group: "pending.example.com", Kind: "Gadget"}: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Change{model.Update, model.Update, model.NoChange, model.Create, model.CreatePending}
	for i, d := range diffs {
		if d.Change != want[i] {
			t.Errorf("%s: change %s, want %s\n%s", d.Object, d.Change, want[i], d.Diff)
		}
	}
	if !strings.Contains(diffs[0].Diff, "-  level: info") || !strings.Contains(diffs[0].Diff, "+  level: debug") {
		t.Errorf("configmap diff:\n%s", diffs[0].Diff)
	}
	for _, leak := range []string{"Pa55word", "old-", "new-"} {
		if strings.Contains(diffs[1].Diff, leak) {
			t.Errorf("the Secret diff shows %q:\n%s", leak, diffs[1].Diff)
		}
	}
	if !strings.Contains(diffs[1].Diff, "password: "+secrets.HMACPrefix) || !strings.Contains(diffs[1].Diff, "-") {
		t.Errorf("a changed Secret value must show as a changed mask:\n%s", diffs[1].Diff)
	}
	for _, noise := range []string{"resourceVersion", "managedFields", "uid:", "creationTimestamp"} {
		if strings.Contains(diffs[0].Diff, noise) {
			t.Errorf("diff shows server-owned %s:\n%s", noise, diffs[0].Diff)
		}
	}
	after, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "diffed", metav1.GetOptions{})
	if err != nil || after.ResourceVersion != before.ResourceVersion || after.Data["level"] != "info" {
		t.Errorf("diff wrote to the cluster: %v %v", after, err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "brand-new", metav1.GetOptions{}); err == nil {
		t.Error("diff created an object")
	}
}
