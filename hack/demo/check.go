package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/roleout/roleout/agent"
)

// check verifies the demo's outcome from the status branch: the first
// rollout went prefill → decode → router, one role per wave, the second
// rolled decode alone, and every workload's predicted identity equals
// the one its controller made.
func check(ctx context.Context, o options, config string) error {
	out, err := exec.CommandContext(ctx, o.roleout, "history", "--config", config, "--app", "llm-serving", "--output", "json").Output()
	if err != nil {
		return fmt.Errorf("roleout history: %w", err)
	}
	var rep agent.HistoryReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("read roleout history: %w", err)
	}
	if len(rep.Rollouts) != 2 {
		return fmt.Errorf("%d rollouts recorded, want 2", len(rep.Rollouts))
	}
	want := []string{"prefill | decode | router", "decode"}
	var errs []error
	for i, r := range rep.Rollouts {
		if got := waveRoles(r); got != want[i] || r.Result != agent.PhaseSucceeded {
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
func waveRoles(r agent.RolloutRecord) string {
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
