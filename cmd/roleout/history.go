package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/status"
)

// historyOptions are the flags of `roleout history`.
type historyOptions struct {
	config string
	app    string
	role   string
}

func newHistoryCommand(global *globalOptions) *cobra.Command {
	o := &historyOptions{}
	cmd := &cobra.Command{
		Use:   "history --config F --app A [--role R]",
		Short: "Show an app's roles, revisions and rollouts from the status branch, without a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(o.config)
			if err != nil {
				return err
			}
			rep, err := agent.History(cmd.Context(), cfg, o.app)
			if err != nil {
				return err
			}
			if o.role != "" {
				if err := onlyRole(rep, o.role); err != nil {
					return err
				}
			}
			if global.output == "json" {
				return writeJSON(cmd.OutOrStdout(), rep)
			}
			return printHistory(cmd.OutOrStdout(), rep)
		},
	}
	cmd.Flags().StringVar(&o.config, "config", "", "agent configuration file (required)")
	cmd.Flags().StringVar(&o.app, "app", "", "app (required)")
	cmd.Flags().StringVar(&o.role, "role", "", "show only this role")
	_ = cmd.MarkFlagRequired("config")
	_ = cmd.MarkFlagRequired("app")
	return cmd
}

// onlyRole narrows the report to one role.
func onlyRole(rep *status.HistoryReport, role string) error {
	var roles []*status.Role
	for _, r := range rep.Status.Roles {
		if r.Name == role {
			roles = append(roles, r)
		}
	}
	if len(roles) == 0 && len(rep.Revisions[role]) == 0 {
		return &usageError{"app " + rep.Status.App + " has no role " + role}
	}
	rep.Status.Roles = roles
	for name := range rep.Revisions {
		if name != role {
			delete(rep.Revisions, name)
		}
	}
	for i := range rep.Rollouts {
		for j := range rep.Rollouts[i].Waves {
			var keep []status.RoleRecord
			for _, r := range rep.Rollouts[i].Waves[j].Roles {
				if r.Name == role {
					keep = append(keep, r)
				}
			}
			rep.Rollouts[i].Waves[j].Roles = keep
		}
	}
	return nil
}

// usageError is an error about what was asked for.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func printHistory(w io.Writer, rep *status.HistoryReport) error {
	st := rep.Status
	p := &printer{w: w}
	p.f("app %s (%s, %s)\nrevision %s: %s", st.App, st.Source, st.Path, st.SourceRevision, st.Phase)
	if st.Message != "" {
		p.f(" — %s", st.Message)
	}
	p.f("\n\n")
	for _, section := range []func(*printer, *status.HistoryReport){printRoles, printRevisions, printRollouts} {
		if p.err != nil {
			return p.err
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		tp := &printer{w: tw}
		section(tp, rep)
		if tp.err != nil {
			return tp.err
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		p.f("\n")
	}
	return p.err
}

// printRoles prints each role with its workloads, predicted and observed.
func printRoles(p *printer, rep *status.HistoryReport) {
	p.f("ROLE\tORDER\tREV\tREVISION NAME\tLAST RESULT\tWORKLOAD\tPREDICTED\tOBSERVED\n")
	for _, r := range rep.Status.Roles {
		rev, name, result := fmt.Sprint(r.RevisionNumber), r.RevisionName, r.Result
		if r.RevisionNumber == 0 {
			rev, name = "-", "(none succeeded)"
		}
		if r.FailedRevisionNumber > 0 {
			result = fmt.Sprintf("%s (rev %d %s)", r.Result, r.FailedRevisionNumber, r.FailedRevisionName)
		}
		if len(r.Workloads) == 0 {
			p.f("%s\t%d\t%s\t%s\t%s\t\t\t\n", r.Name, r.UpgradeOrder, rev, name, result)
		}
		for i, wl := range r.Workloads {
			observed, predicted := "-", wl.Predicted.String()
			if wl.Unverified != "" {
				predicted = strings.TrimPrefix(predicted+" (unverified: "+wl.Unverified+")", " ")
			}
			if wl.Observed != nil {
				observed = wl.Observed.String()
				if !wl.Match && wl.Unverified == "" {
					observed += " (MISMATCH)"
				}
			}
			if i == 0 {
				p.f("%s\t%d\t%s\t%s\t%s\t", r.Name, r.UpgradeOrder, rev, name, result)
			} else {
				p.f("\t\t\t\t\t")
			}
			p.f("%s/%s\t%s\t%s\n", wl.Kind, wl.Name, predicted, observed)
		}
	}
}

// printRevisions prints every role's recorded revisions, the current one
// marked.
func printRevisions(p *printer, rep *status.HistoryReport) {
	p.f("revisions:\nROLE\tREV\tNAME\tSOURCE\tCURRENT\n")
	roles := make([]string, 0, len(rep.Revisions))
	for role := range rep.Revisions {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
		for _, r := range rep.Revisions[role] {
			current := ""
			for _, s := range rep.Status.Roles {
				if s.Name == role && s.RevisionName == r.Name && s.RevisionNumber == r.Number {
					current = "*"
				}
			}
			p.f("%s\t%d\t%s\t%s\t%s\n", role, r.Number, r.Name, shortRevision(r.Source), current)
		}
	}
}

// printRollouts prints the rollout records, oldest first.
func printRollouts(p *printer, rep *status.HistoryReport) {
	p.f("rollouts (oldest first):\nSTARTED\tDURATION\tTRIGGER\tREVISION\tRESULT\tWAVES\n")
	for _, r := range rep.Rollouts {
		var waves []string
		for _, wv := range r.Waves {
			var roles []string
			for _, role := range wv.Roles {
				roles = append(roles, role.Name+"→"+strconv.FormatInt(role.RevisionNumber, 10))
			}
			waves = append(waves, strings.Join(roles, ",")+" "+wv.Result+" in "+wv.Elapsed)
		}
		if len(r.Pruned) > 0 {
			waves = append(waves, "pruned "+strings.Join(r.Pruned, ","))
		}
		p.f("%s\t%s\t%s\t%s\t%s\t%s\n", r.Started.UTC().Format("2006-01-02 15:04:05"), r.Finished.Sub(r.Started.Time).String(),
			r.Trigger, shortRevision(r.SourceRevision), r.Result, strings.Join(waves, "; "))
	}
}

// shortRevision shortens main@sha1:<40 hex> to main@sha1:1a2b3c4.
func shortRevision(rev string) string {
	if i := strings.Index(rev, "sha1:"); i >= 0 && len(rev) > i+5+7 {
		return rev[:i+5+7]
	}
	return rev
}
