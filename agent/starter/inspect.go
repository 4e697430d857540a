package starter

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render/plan"
	rschema "github.com/roleout/roleout/render/schema"
)

// Inspector renders and plans what init proposes, from the checkout init
// reads, as the agent renders and plans (agent.Inspector). With one,
// init proposes from the objects an app renders; without, from the
// repository's layout alone.
type Inspector interface {
	// Render builds app's overlay from the checkout at root with the
	// app's render settings and returns its objects, each with its
	// source path (object.SourcePathAnnotation) and namespace set.
	Render(ctx context.Context, root string, app config.App) ([]*unstructured.Unstructured, error)
	// Plan plans app of cfg from the checkout at root, offline, as
	// `roleout plan --config` plans it from git.
	Plan(ctx context.Context, root string, cfg *config.Config, app string) (*model.Plan, error)
}

// rendered is what one app's render gave init.
type rendered struct {
	objs []*unstructured.Unstructured
	err  error
}

// inspect renders every app of r with in and proposes from the objects:
// roles where they hold objects that go into waves, ordered by what the
// objects need (propose.go), the kinds and namespaces the app writes,
// the apps it depends on for its CRDs, and what stands between the app
// and a plan (needs).
func (r *Result) inspect(ctx context.Context, root string, in Inspector) error {
	renders := make([]rendered, len(r.Apps))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.NumCPU())
	for i := range r.Apps {
		g.Go(func() error {
			objs, err := in.Render(gctx, root, r.Apps[i].config())
			renders[i] = rendered{objs, err}
			return ctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	defined := definedKinds(r.Apps, renders)
	for i := range r.Apps {
		a := &r.Apps[i]
		if err := renders[i].err; err != nil {
			if len(a.Needs) == 0 { // else the needs say why
				a.Needs = append(a.Needs, "the render fails: "+firstLine(err.Error()))
			}
			continue
		}
		objs := renders[i].objs
		argo := strings.HasPrefix(a.From, "Argo CD ")
		if argo {
			r.Untranslated = append(r.Untranslated, argoHooks(a.Name, objs)...)
		}
		if !argo || !a.syncWaveRoles(objs, plan.IsPrerequisite) {
			a.proposeRoles(objs)
		}
		a.proposeKinds(objs)
		a.proposeNamespaces(objs)
		a.proposeDependencies(objs, defined)
	}
	r.Warnings = append(r.Warnings, sharedObjects(r.Apps, renders)...)
	return nil
}

// check plans every app of the written configuration with in, and adds
// to an app's needs why its plan fails, so that an app with no needs
// plans as written; it keeps the plans' order warnings.
func (r *Result) check(ctx context.Context, root string, in Inspector) error {
	cfg, err := config.Parse(r.Config, "the starter config")
	if err != nil {
		return fmt.Errorf("roleout init wrote a config that does not load: %w", err)
	}
	errs := make([]error, len(r.Apps))
	late := make([][]string, len(r.Apps))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.NumCPU())
	for i := range r.Apps {
		if len(r.Apps[i].Needs) > 0 {
			continue // its plan fails for a reason already given
		}
		g.Go(func() error {
			plan, err := in.Plan(gctx, root, cfg, r.Apps[i].Name)
			if err == nil {
				for _, l := range plan.Late {
					late[i] = append(late[i], l.String())
				}
			}
			errs[i] = err
			return ctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i := range r.Apps {
		if errs[i] != nil {
			r.Apps[i].Needs = append(r.Apps[i].Needs, "roleout plan fails: "+firstLine(errs[i].Error()))
		}
		for _, l := range late[i] {
			r.Warnings = append(r.Warnings, fmt.Sprintf("app %s: %s", r.Apps[i].Name, l))
		}
	}
	return nil
}

// definedKinds maps each custom kind to the apps whose render holds its
// CustomResourceDefinition.
func definedKinds(apps []App, renders []rendered) map[schema.GroupKind][]string {
	out := map[schema.GroupKind][]string{}
	for i, rd := range renders {
		for _, o := range rd.objs {
			if gk, _, ok := rschema.CRDScope(o); ok && !slices.Contains(out[gk], apps[i].Name) {
				out[gk] = append(out[gk], apps[i].Name)
			}
		}
	}
	return out
}

// sharedObjects warns of objects that several apps render: an object
// belongs to one app, and the app applied second is refused it.
func sharedObjects(apps []App, renders []rendered) []string {
	owners := map[object.Ref][]string{}
	var order []object.Ref
	for i, rd := range renders {
		for _, o := range rd.objs {
			ref := object.RefOf(o)
			if len(owners[ref]) == 0 {
				order = append(order, ref)
			}
			if !slices.Contains(owners[ref], apps[i].Name) {
				owners[ref] = append(owners[ref], apps[i].Name)
			}
		}
	}
	byApps := map[string][]string{}
	var keys []string
	for _, ref := range order {
		if len(owners[ref]) < 2 {
			continue
		}
		k := strings.Join(owners[ref], ", ")
		if _, ok := byApps[k]; !ok {
			keys = append(keys, k)
		}
		byApps[k] = append(byApps[k], ref.String())
	}
	var out []string
	for _, k := range keys {
		refs := byApps[k]
		more := ""
		if len(refs) > 3 {
			more = fmt.Sprintf(" and %d more", len(refs)-3)
			refs = refs[:3]
		}
		out = append(out, fmt.Sprintf("apps %s render the same objects (%s%s): an object belongs to one app, and roleout refuses it to the others; they look like alternatives: keep one, or remove the objects from all but one", k, strings.Join(refs, ", "), more))
	}
	return out
}

// maxNeed bounds one need taken from an error.
const maxNeed = 600

// firstLine is an error as one line, its lines joined, cut at maxNeed
// bytes, for a need.
func firstLine(s string) string {
	var parts []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, strings.TrimSuffix(l, ":"))
		}
	}
	out := strings.Join(parts, ": ")
	if len(out) > maxNeed {
		out = strings.ToValidUTF8(out[:maxNeed], "") + "…"
	}
	return out
}
