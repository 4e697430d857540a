package agent

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/substitute"
	"github.com/roleout/roleout/sources"
)

// previewVariable is the value a preview gives a variable only a Secret
// of substituteFrom could set: previews never read Secrets.
const previewVariable = "not-read-in-previews"

// substitute replaces the app's variables in objs after the render
// (config.App.Substitutes): the data of substituteFrom's ConfigMaps and
// Secrets, read from the app's cluster in order, then substitute, which
// wins. Without a cluster (an offline plan) a substituteFrom object that
// is not optional is an error saying so. A snapshot that is not trusted
// (a pull-request head) reads no Secret: a variable that only a Secret
// could set is previewVariable.
func (p planning) substitute(ctx context.Context, req planRequest, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	app := req.app
	if !app.Substitutes() {
		return objs, nil
	}
	vars := map[string]string{}
	unread := false
	for i, ref := range app.SubstituteFrom {
		if ref.Kind == "Secret" && req.snap.Trust != sources.Trusted {
			unread = true
			continue
		}
		data, err := p.variablesFrom(ctx, req, ref)
		if err != nil {
			return nil, fmt.Errorf("substituteFrom[%d] %s %s: %w", i, ref.Kind, p.refName(ref), err)
		}
		maps.Copy(vars, data)
	}
	maps.Copy(vars, app.Substitute)
	opts := substitute.Options{Vars: vars, AllowUnset: app.SubstituteAllowUnset, MaxBytes: renderOptions(app.Render).Limits.MaxBytes}
	if unread {
		opts.Fallback = func(string) string { return previewVariable }
	}
	return substitute.Objects(objs, opts)
}

// refName is ref's namespace/name, its namespace defaulted to the
// agent's.
func (p planning) refName(ref config.SubstituteReference) string {
	return p.refNamespace(ref) + "/" + ref.Name
}

func (p planning) refNamespace(ref config.SubstituteReference) string {
	if ref.Namespace != "" {
		return ref.Namespace
	}
	return p.cfg.Status.ClusterRevisions.AgentNamespace()
}

// variablesFrom reads the data of ref from req's cluster: a missing
// optional object gives none.
func (p planning) variablesFrom(ctx context.Context, req planRequest, ref config.SubstituteReference) (map[string]string, error) {
	if req.cluster == nil {
		if ref.Optional {
			return nil, nil
		}
		return nil, fmt.Errorf("a plan without a cluster cannot read it (roleout diff reads the app's cluster; or mark it optional)")
	}
	live, err := req.cluster.Live(ctx, object.Ref{APIVersion: "v1", Kind: ref.Kind, Namespace: p.refNamespace(ref), Name: ref.Name})
	if err != nil {
		return nil, err
	}
	if live == nil {
		if ref.Optional {
			return nil, nil
		}
		return nil, fmt.Errorf("not found in the app's cluster (create it, or mark it optional)")
	}
	out := map[string]string{}
	data, _, _ := unstructured.NestedStringMap(live.Object, "data")
	for k, v := range data {
		if ref.Kind == "Secret" {
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				return nil, fmt.Errorf("key %s is not base64", k)
			}
			v = string(b)
		}
		out[k] = v
	}
	return out, nil
}
