package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/roleout/roleout/agent"
	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/model"
)

// planFlags select what render and plan work on: a local directory, or an
// app of an agent config read from git.
type planFlags struct {
	root      string
	namespace string
	name      string
	config    string
	app       string
	ref       string
	// kubernetes and controllers (roleout plan only) are the versions
	// to plan for (agent.ParseVersions).
	kubernetes  string
	controllers []string
}

func (f *planFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.root, "root", "", "repository root for a local DIR: reads outside it are refused (default: the enclosing git work tree, else DIR)")
	cmd.Flags().StringVar(&f.namespace, "namespace", "default", "namespace for namespaced objects that name none (local DIR)")
	cmd.Flags().StringVar(&f.name, "name", "", "app name for revision names (local DIR; default: DIR's base name)")
	cmd.Flags().StringVar(&f.config, "config", "", "agent config: plan an app from git instead of a local DIR")
	cmd.Flags().StringVar(&f.app, "app", "", "app of --config to plan")
	cmd.Flags().StringVar(&f.ref, "ref", "", "with --config: a branch, tag, full ref name or commit to plan (default: the configured one)")
}

func newRenderCommand(global *globalOptions) *cobra.Command {
	f := &planFlags{}
	cmd := &cobra.Command{
		Use:   "render [DIR | --config F --app NAME]",
		Short: "Render an overlay and print its objects grouped by wave and role (offline)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			plan, _, _, err := f.plan(cmd.Context(), args)
			if err != nil {
				return err
			}
			return printRender(cmd.OutOrStdout(), plan, global.output)
		},
	}
	f.register(cmd)
	return cmd
}

func newPlanCommand(global *globalOptions) *cobra.Command {
	f := &planFlags{}
	cmd := &cobra.Command{
		Use:   "plan [DIR | --config F --app NAME [--ref REF]]",
		Short: "Show waves, roles, revisions and what changed, without a cluster",
		Long: `plan renders and plans without a cluster and writes nothing to git.

Secret values are masked with a keyed HMAC. With no cluster the install's
key is not at hand, so a local DIR (and --config without masks.keyFile) is
masked with a random key for this run only: the masks, and the template
hashes and revision names of roles holding Secrets, differ on every run and
from the agent's; against the status in git such a role shows as changed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, s, header, err := f.plan(cmd.Context(), args)
			if err != nil {
				return err
			}
			if global.output == "json" {
				return writeJSON(cmd.OutOrStdout(), s)
			}
			return printPlan(cmd.OutOrStdout(), header, s)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.kubernetes, "kubernetes-version", "", "plan for this Kubernetes version (1.36, v1.36.2) and list the workloads upgrading to it would roll; "+
		"a version roleout does not model is listed unknown, never guessed")
	cmd.Flags().StringArrayVar(&f.controllers, "controller", nil, "plan for this version of a workload controller, NAME=VERSION (lws=v0.8.0, aibrix=v0.5.0); repeatable")
	return cmd
}

// plan renders and plans what the flags select. It returns the plan, its
// summary and a header line naming what was planned. With --config a
// role is changed when the agent would apply it (against the status in
// git); a local DIR has no status, so against no history.
func (f *planFlags) plan(ctx context.Context, args []string) (*model.Plan, model.Summary, string, error) {
	if f.config != "" {
		if len(args) > 0 {
			return nil, model.Summary{}, "", errors.New("give a DIR or --config, not both")
		}
		if f.app == "" {
			return nil, model.Summary{}, "", errors.New("--app is required with --config")
		}
		cfg, err := config.Load(f.config)
		if err != nil {
			return nil, model.Summary{}, "", err
		}
		versions, err := agent.ParseVersions(f.kubernetes, f.controllers)
		if err != nil {
			return nil, model.Summary{}, "", err
		}
		p, err := agent.PlanFromGit(ctx, cfg, f.app, agent.PlanOptions{Ref: f.ref, Versions: versions})
		if err != nil {
			return nil, model.Summary{}, "", err
		}
		return p.Plan, p.Summary, fmt.Sprintf("app %s at %s", f.app, p.Revision), nil
	}
	if len(args) != 1 {
		return nil, model.Summary{}, "", errors.New("give a kustomize DIR, or --config F --app NAME")
	}
	plan, header, err := f.planDir(ctx, args[0])
	if err != nil {
		return nil, model.Summary{}, "", err
	}
	return plan, plan.Summarize(nil), header, nil
}

var nonName = regexp.MustCompile(`[^a-z0-9-]+`)

func (f *planFlags) planDir(ctx context.Context, dir string) (*model.Plan, string, error) {
	o, err := f.dirOptions(dir)
	if err != nil {
		return nil, "", err
	}
	if o.Versions, err = agent.ParseVersions(f.kubernetes, f.controllers); err != nil {
		return nil, "", err
	}
	plan, err := agent.PlanDir(ctx, o)
	if err != nil {
		return nil, "", err
	}
	return plan, fmt.Sprintf("%s (app %s, no previous status)", dir, o.App), nil
}

// dirOptions selects the local DIR: its repository root (--root, else the
// enclosing git work tree, else DIR), the app name and the namespace.
func (f *planFlags) dirOptions(dir string) (agent.DirOptions, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return agent.DirOptions{}, err
	}
	root := f.root
	if root == "" {
		root = gitRoot(abs)
	}
	if root, err = filepath.Abs(root); err != nil {
		return agent.DirOptions{}, err
	}
	overlay, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(overlay, "..") {
		return agent.DirOptions{}, fmt.Errorf("%s is not inside the root %s", dir, root)
	}
	return agent.DirOptions{Root: root, Overlay: filepath.ToSlash(overlay), App: f.appName(dir), Namespace: f.namespace}, nil
}

// appName is the app name for a local DIR: --name, else DIR's base name
// made into a DNS label.
func (f *planFlags) appName(dir string) string {
	if f.name != "" {
		return f.name
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return strings.Trim(nonName.ReplaceAllString(strings.ToLower(filepath.Base(abs)), "-"), "-")
}

// gitRoot returns the nearest directory at or above dir that holds .git,
// else dir.
func gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func printPlan(w io.Writer, header string, s model.Summary) error {
	p := &printer{w: w}
	p.f("plan for %s\n", header)
	if len(s.Prerequisites) > 0 {
		p.f("prerequisites: %s\n", joinRefs(s.Prerequisites))
	}
	for i, wave := range s.Waves {
		p.f("wave %d (upgradeOrder %d)\n", i+1, wave.UpgradeOrder)
		for _, r := range wave.Roles {
			p.f("  role %-16s rev %-3d %-40s %-9s %d objects\n", r.Name, r.RevisionNumber, r.RevisionName, r.State(), len(r.Objects))
			for _, w := range r.Workloads {
				restart := "no restart"
				if w.RestartsPods {
					restart = "restarts pods"
				}
				name := w.Name
				if w.Namespace != "" {
					name = w.Namespace + "/" + w.Name
				}
				p.f("    %s/%s → %s (%s)\n", w.Kind, name, w.Predicted.Describe(w.Unverified), restart)
			}
		}
	}
	if len(s.Prune) > 0 {
		p.f("prune: %s\n", joinRefs(s.Prune))
	}
	if len(s.Unchecked) > 0 {
		p.f("unchecked (no schema for their kind, in the render, the cluster or roleout): %s\n", joinRefs(s.Unchecked))
	}
	for _, w := range s.Warnings {
		p.f("warning: %s\n", w)
	}
	if u := s.Upgrade; u != nil {
		printUpgrade(p, u)
	}
	return p.err
}

// printUpgrade prints what an upgrade to the versions planned for would
// roll (roleout plan --kubernetes-version, --controller).
func printUpgrade(p *printer, u *model.Upgrade) {
	var to []string
	if u.Kubernetes != "" {
		to = append(to, "Kubernetes "+u.Kubernetes)
	}
	for _, name := range slices.Sorted(maps.Keys(u.Controllers)) {
		to = append(to, name+" "+u.Controllers[name])
	}
	p.f("upgrade to %s, with no change in git:\n", strings.Join(to, ", "))
	p.f("  rolls (%d): %s\n", len(u.Rolls), orNone(joinRefs(u.Rolls)))
	p.f("  unchanged (%d): %s\n", len(u.Unchanged), orNone(joinRefs(u.Unchanged)))
	for _, w := range u.Unknown {
		p.f("  unknown: %s: %s\n", w.Ref, w.Reason)
	}
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func printRender(w io.Writer, plan *model.Plan, output string) error {
	if output == "json" {
		type role struct {
			Name         string                       `json:"name"`
			UpgradeOrder int                          `json:"upgradeOrder"`
			Objects      []*unstructured.Unstructured `json:"objects"`
		}
		type wave struct {
			UpgradeOrder int    `json:"upgradeOrder"`
			Roles        []role `json:"roles"`
		}
		out := struct {
			Prerequisites []*unstructured.Unstructured `json:"prerequisites"`
			Waves         []wave                       `json:"waves"`
		}{Prerequisites: plan.Prerequisites}
		for _, w := range plan.Waves {
			wv := wave{UpgradeOrder: w.UpgradeOrder}
			for _, r := range w.Roles {
				wv.Roles = append(wv.Roles, role{Name: r.Name, UpgradeOrder: r.UpgradeOrder, Objects: r.Objects})
			}
			out.Waves = append(out.Waves, wv)
		}
		return writeJSON(w, out)
	}
	p := &printer{w: w}
	docs := func(header string, objs []*unstructured.Unstructured) {
		for _, o := range objs {
			data, err := yaml.Marshal(o.Object)
			if err != nil {
				p.err = err
				return
			}
			p.f("---\n# %s\n%s", header, data)
		}
	}
	docs("prerequisites", plan.Prerequisites)
	for i, w := range plan.Waves {
		for _, r := range w.Roles {
			docs(fmt.Sprintf("wave %d (upgradeOrder %d), role %s", i+1, w.UpgradeOrder, r.Name), r.Objects)
		}
	}
	return p.err
}

// joinRefs lists refs, comma-separated.
func joinRefs[T fmt.Stringer](refs []T) string {
	var parts []string
	for _, r := range refs {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printer writes formatted text and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
