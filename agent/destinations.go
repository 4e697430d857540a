package agent

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/render"
)

// destinations are where app's objects may go (docs/design.md, "Safety
// and trust", Destinations): its allowedNamespaces and allowedKinds, else
// the agent's defaults, else the built-in defaults of render.Destinations.
// Errors name the field the rule came from and the app's own field to
// change.
func (c *Config) destinations(app AppConfig) render.Destinations {
	ns := app.Namespace
	if ns == "" {
		ns = "default" // where kustomizeRenderer puts objects that name none
	}
	d := render.Destinations{
		App: app.Name, Namespace: ns,
		NamespacesField: c.appField(app, "allowedNamespaces"), KindsField: c.appField(app, "allowedKinds"),
	}
	d.NamespacesFix, d.KindsFix = d.NamespacesField, d.KindsField
	defaults := c.Defaults
	switch {
	case len(app.AllowedNamespaces) > 0:
		d.Namespaces = app.AllowedNamespaces
	case len(defaults.AllowedNamespaces) > 0:
		d.Namespaces, d.NamespacesField = defaults.AllowedNamespaces, "defaults.allowedNamespaces"
	}
	kinds := app.AllowedKinds
	if len(kinds) == 0 && len(defaults.AllowedKinds) > 0 {
		kinds, d.KindsField = defaults.AllowedKinds, "defaults.allowedKinds"
	}
	for _, k := range kinds {
		d.Kinds = append(d.Kinds, render.KindRule{Group: k.Group, Kind: k.Kind})
	}
	return d
}

// checkDestinations refuses, as a whole, a render of app with any object
// outside its destinations: nothing of it is applied, nothing pruned.
func (c *Config) checkDestinations(app AppConfig, objs []*unstructured.Unstructured) error {
	if err := render.CheckDestinations(objs, c.destinations(app)); err != nil {
		return fmt.Errorf("objects outside the app's allowed namespaces and kinds, nothing of it applied:\n%w", err)
	}
	return nil
}
