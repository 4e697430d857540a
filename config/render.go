package config

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/roleout/roleout/render"
)

// Options turns an app's render settings into render options.
func (c Render) Options() render.Options {
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

// PreviewsRequireIsolation reports whether the app's previews refuse to
// render without a network namespace: requireNetworkIsolation, default
// true.
func (c Render) PreviewsRequireIsolation() bool {
	return c.RequireNetworkIsolation == nil || *c.RequireNetworkIsolation
}

// RoleSpecs turns an app's roles into render role specs.
func (app App) RoleSpecs() ([]render.RoleSpec, error) {
	var out []render.RoleSpec
	for _, r := range app.Roles {
		spec := render.RoleSpec{Name: r.Name, UpgradeOrder: r.UpgradeOrder, Kinds: r.Kinds, Names: r.Names, Paths: r.Paths, Annotations: r.Annotations}
		if r.Selector != nil {
			sel, err := metav1.LabelSelectorAsSelector(r.Selector)
			if err != nil {
				return nil, err
			}
			spec.Selector = sel
		}
		out = append(out, spec)
	}
	return out, nil
}

// UsesPaths reports whether a role of app claims objects by source path:
// only then does its render record them (render.Options.Origins).
func (app App) UsesPaths() bool {
	for _, r := range app.Roles {
		if len(r.Paths) > 0 {
			return true
		}
	}
	return false
}
