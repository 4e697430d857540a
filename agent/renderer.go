package agent

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/model"
	"github.com/roleout/roleout/render"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/sources"
)

// builder is what kustomizeRenderer needs of render.Renderer.
type builder interface {
	Build(ctx context.Context, src render.Source, overlay string, opts render.Options) (render.Result, error)
}

// kustomizeRenderer is the Renderer of render.Renderer, with its cache.
type kustomizeRenderer struct{ b builder }

// Builds returns how many kustomize builds the renderer ran (render
// cache misses), for the benchmarks.
func (k *kustomizeRenderer) Builds() int {
	if r, ok := k.b.(*render.Renderer); ok {
		return r.Builds()
	}
	return 0
}

// spareIdle is how long the agent's warm sandbox process waits for a
// render (render.Renderer.Spare): ten polls at the default interval. It
// holds about 20 MiB of memory of its own (its binary's pages are the
// agent's) and saves each render the sandbox's start: about 30 ms, and 60
// more when the overlay has a strategic-merge patch.
const spareIdle = 10 * time.Minute

// Close kills the renderer's warm sandbox process, when it keeps one.
func (k *kustomizeRenderer) Close() {
	if r, ok := k.b.(*render.Renderer); ok {
		r.Close()
	}
}

// newKustomizeRenderer returns a renderer with an empty render cache that
// runs up to processes renders at once (0: one per CPU). One that serves
// an agent (log set) keeps warm sandbox processes, which Agent.Close
// kills; a one-shot command's (log nil) starts one per render.
func newKustomizeRenderer(processes int, log logrus.FieldLogger) *kustomizeRenderer {
	r := &render.Renderer{Processes: processes}
	if log != nil {
		r.Spare = spareIdle
		r.Debugf = log.Debugf
	}
	return &kustomizeRenderer{b: r}
}

// Render renders in the snapshot's trust domain (docs/design.md, "Safety
// and trust", Trust domains): only a snapshot marked sources.Trusted
// renders with what the app allows; any other (a pull-request head, an
// unmarked one) renders with exec, helm and remote fetches off, in a cache
// domain of its own.
func (k *kustomizeRenderer) Render(ctx context.Context, snap sources.Snapshot, app config.App) ([]*unstructured.Unstructured, error) {
	src, opts := renderRequest(snap, app)
	res, err := k.b.Build(ctx, src, app.Path, opts)
	if err != nil {
		if src.Domain != string(sources.Trusted) {
			return nil, &UntrustedRenderError{Err: err}
		}
		return nil, err
	}
	return res.Objects, nil
}

// renderRequest returns what to render snap's overlay of app from and
// with which options: the app's own for a trusted snapshot, the untrusted
// ones (untrustedOptions) for any other.
func renderRequest(snap sources.Snapshot, app config.App) (render.Source, render.Options) {
	src := render.Source{Root: snap.Dir, Domain: string(sources.Untrusted)}
	if snap.Index != nil {
		src.Index = snap.Index
	}
	opts := renderOptions(app.Render)
	opts.Origins = app.UsesPaths()
	if snap.Trust == sources.Trusted {
		src.Domain = string(sources.Trusted)
	} else {
		opts = untrustedOptions(opts)
		opts.RequireNetworkIsolation = app.Render.PreviewsRequireIsolation()
	}
	return src, opts
}

// renderOptions turns an app's render settings (config.Render) into
// render options: render.DefaultOptions, with what the config sets.
func renderOptions(c config.Render) render.Options {
	o := render.DefaultOptions()
	o.RemoteHosts, o.EnableHelm, o.EnableExec = c.RemoteHosts, c.EnableHelm, c.EnableExec
	o.RequireNetworkIsolation = c.RequireNetworkIsolation != nil && *c.RequireNetworkIsolation
	if c.MaxObjects > 0 {
		o.Limits.MaxObjects = c.MaxObjects
	}
	if c.MaxBytes > 0 {
		o.Limits.MaxBytes = c.MaxBytes
	}
	if c.MaxMemoryBytes > 0 {
		o.Limits.MaxMemory = c.MaxMemoryBytes
	}
	if c.MaxFileBytes > 0 {
		o.Limits.MaxFileBytes = c.MaxFileBytes
	}
	if c.Timeout.Duration > 0 {
		o.Limits.Timeout = c.Timeout.Duration
	}
	return o
}

// untrustedOptions returns o with exec functions, helm and remote fetches
// off, whatever the app allows; the limits stay.
func untrustedOptions(o render.Options) render.Options {
	o.EnableExec, o.EnableHelm, o.RemoteHosts = false, false, nil
	return o
}

// UntrustedRenderError is the error of a render in the untrusted domain (a
// pull-request preview): such renders never run exec functions or helm and
// never fetch remote bases, so an overlay that needs them fails there.
type UntrustedRenderError struct{ Err error }

func (e *UntrustedRenderError) Error() string {
	return "untrusted render (previews never run exec functions, helm or remote fetches, whatever the app allows): " + e.Err.Error()
}

func (e *UntrustedRenderError) Unwrap() error { return e.Err }

// rolePlanner is the Planner of plan.New.
type rolePlanner struct{}

func (rolePlanner) Plan(objs []*unstructured.Unstructured, opts plan.Options, facts plan.Facts) (*model.Plan, error) {
	return plan.New(objs, opts, facts)
}
