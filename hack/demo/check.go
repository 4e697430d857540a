package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/roleout/roleout/status"
)

// check verifies the demo's outcome from the status branch: the first
// rollout went prefill → decode → router, one role per wave, the second
// rolled decode alone, and every workload's predicted identity equals
// the one its controller made; and from the cluster (checkCluster).
func check(ctx context.Context, o options, config, kubeconfig string) error {
	if err := checkCluster(ctx, kubeconfig); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, o.roleout, "history", "--config", config, "--app", "llm-serving", "--output", "json").Output()
	if err != nil {
		return fmt.Errorf("roleout history: %w", err)
	}
	var rep status.HistoryReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("read roleout history: %w", err)
	}
	if len(rep.Rollouts) != 2 {
		return fmt.Errorf("%d rollouts recorded, want 2", len(rep.Rollouts))
	}
	want := []string{"prefill | decode | router", "decode"}
	var errs []error
	for i, r := range rep.Rollouts {
		if got := waveRoles(r); got != want[i] || r.Result != status.PhaseSucceeded {
			errs = append(errs, fmt.Errorf("rollout %d: waves %q (%s), want %q succeeded", i+1, got, r.Result, want[i]))
		}
	}
	for _, role := range rep.Status.Roles {
		for _, w := range role.Workloads {
			if w.Observed == nil || !w.Match {
				errs = append(errs, fmt.Errorf("role %s: %s/%s predicted %+v, observed %+v", role.Name, w.Kind, w.Name, w.Predicted, w.Observed))
			}
		}
		if len(role.Workloads) == 0 {
			errs = append(errs, fmt.Errorf("role %s records no workload", role.Name))
		}
	}
	return errors.Join(errs...)
}

// waveRoles renders a rollout's waves as "a | b,c".
func waveRoles(r status.Rollout) string {
	var waves []string
	for _, w := range r.Waves {
		var roles []string
		for _, role := range w.Roles {
			roles = append(roles, role.Name)
		}
		waves = append(waves, strings.Join(roles, ","))
	}
	return strings.Join(waves, " | ")
}

// checkCluster verifies the outcome from the cluster itself: prefill (wave
// 1) became Available no later than decode (wave 2) was created, and only
// decode has a second ReplicaSet (only it rolled on the second commit).
func checkCluster(ctx context.Context, kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	const ns = "llm-dev"
	var errs []error
	order := []string{"prefill", "decode", "router"}
	for i, name := range order {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("deployment %s: %w", name, err)
		}
		rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(d.Spec.Selector)})
		if err != nil {
			return err
		}
		want := 1
		if name == "decode" {
			want = 2
		}
		if len(rss.Items) != want {
			errs = append(errs, fmt.Errorf("deployment %s has %d ReplicaSets, want %d", name, len(rss.Items), want))
		}
		// decode's Available condition may move during its second rollout:
		// the order is read off the first wave only.
		if i > 0 {
			continue
		}
		next, err := cs.AppsV1().Deployments(ns).Get(ctx, order[i+1], metav1.GetOptions{})
		if err != nil {
			return err
		}
		var available *metav1.Time
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
				available = &c.LastTransitionTime
			}
		}
		if available == nil || next.CreationTimestamp.Before(available) {
			errs = append(errs, fmt.Errorf("deployment %s was created (%s) before %s was Available (%v)", order[i+1], next.CreationTimestamp, name, available))
		}
	}
	return errors.Join(errs...)
}
