package starter

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/roleout/roleout/apply/healthcheck"
	"github.com/roleout/roleout/config"
)

// fluxKustomization is what init reads of a Flux Kustomization
// (kustomize.toolkit.fluxcd.io/v1); every other field is untranslated.
type fluxKustomization struct {
	Spec struct {
		Path            string `json:"path"`
		TargetNamespace string `json:"targetNamespace"`
		Prune           bool   `json:"prune"`
		Force           bool   `json:"force"`
		Suspend         bool   `json:"suspend"`
		Interval        string `json:"interval"`
		Timeout         string `json:"timeout"`
		DependsOn       []struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"dependsOn"`
		SourceRef struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"sourceRef"`
		PostBuild struct {
			Substitute     map[string]string `json:"substitute"`
			SubstituteFrom []struct {
				Kind     string `json:"kind"`
				Name     string `json:"name"`
				Optional bool   `json:"optional"`
			} `json:"substituteFrom"`
		} `json:"postBuild"`
		Decryption *struct {
			Provider  string `json:"provider"`
			SecretRef *struct {
				Name string `json:"name"`
			} `json:"secretRef"`
		} `json:"decryption"`
		HealthCheckExprs []healthcheck.Rule `json:"healthCheckExprs"`
		// Fields roleout has no equivalent of: listed as untranslated.
		Components         []string `json:"components"`
		Patches            []any    `json:"patches"`
		Images             []any    `json:"images"`
		KubeConfig         any      `json:"kubeConfig"`
		ServiceAccountName string   `json:"serviceAccountName"`
		NamePrefix         string   `json:"namePrefix"`
		NameSuffix         string   `json:"nameSuffix"`
		CommonMetadata     any      `json:"commonMetadata"`
	} `json:"spec"`
}

// fluxApps proposes one app per Flux Kustomization: path, target
// namespace, prune, force, timeout, dependsOn, postBuild variables,
// decryption and health expressions carried over; a Kustomization whose
// path holds Flux's own objects (the flux-system one) is Flux's, not an
// app. It returns the apps, the smallest interval, and what it could not
// carry over.
func (g *gitops) fluxApps() (apps []App, interval time.Duration, untranslated []string) {
	type named struct {
		obj gitopsObject
		ks  fluxKustomization
	}
	var kept []named
	for _, o := range g.kustomizations {
		var ks fluxKustomization
		if err := json.Unmarshal(o.raw, &ks); err != nil {
			untranslated = append(untranslated, fmt.Sprintf("%s: not a Kustomization init can read: %v", o, err))
			continue
		}
		p := repoPath(ks.Spec.Path)
		switch {
		case p == "":
			untranslated = append(untranslated, fmt.Sprintf("%s: path %q leaves the repository", o, ks.Spec.Path))
			continue
		case g.dirs[p] || slices.ContainsFunc(sortedDirs(g.dirs), func(d string) bool { return under(d, p) && p != "." }):
			untranslated = append(untranslated, fmt.Sprintf("%s: its path %s holds Flux's own objects (Flux manages itself there): not an app", o, p))
			continue
		case ks.Spec.SourceRef.Kind != "" && ks.Spec.SourceRef.Kind != "GitRepository":
			untranslated = append(untranslated, fmt.Sprintf("%s: its source is %s %s, not this repository: roleout follows one git repository", o, ks.Spec.SourceRef.Kind, ks.Spec.SourceRef.Name))
			continue
		}
		kept = append(kept, named{o, ks})
	}
	// Two clusters' Kustomizations often share a name (apps,
	// infrastructure): the directory of the object tells them apart.
	names := map[string]int{}
	for _, k := range kept {
		names[k.obj.name]++
	}
	nameOf := map[string]string{} // namespace/name (and file dir) → app name
	for _, k := range kept {
		n := dnsLabel(k.obj.name, "app")
		if names[k.obj.name] > 1 {
			n = dnsLabel(lastDir(k.obj.file)+"-"+k.obj.name, "app")
		}
		nameOf[fluxKey(k.obj)] = n
	}
	for _, k := range kept {
		o, s := k.obj, k.ks.Spec
		a := App{Name: nameOf[fluxKey(o)], Path: repoPath(s.Path), Namespace: s.TargetNamespace, Roles: []Role{}, Needs: []string{},
			From: "Flux " + o.String()}
		a.Prune, a.Force = s.Prune, s.Force
		a.Timeout = s.Timeout
		if d, err := time.ParseDuration(s.Interval); err == nil && d > 0 && (interval == 0 || d < interval) {
			interval = d
		}
		for _, dep := range s.DependsOn {
			ns := dep.Namespace
			if ns == "" {
				ns = o.namespace
			}
			target, ok := nameOf[ns+"/"+dep.Name+"@"+dirOf(o.file)]
			if !ok {
				target, ok = findFluxName(nameOf, ns, dep.Name)
			}
			if !ok {
				untranslated = append(untranslated, fmt.Sprintf("%s: dependsOn %s/%s, which is no app init proposes", o, ns, dep.Name))
				continue
			}
			a.DependsOn = append(a.DependsOn, target)
		}
		a.Substitute = s.PostBuild.Substitute
		for _, r := range s.PostBuild.SubstituteFrom {
			a.SubstituteFrom = append(a.SubstituteFrom, config.SubstituteReference{Kind: r.Kind, Namespace: o.namespace, Name: r.Name, Optional: r.Optional})
		}
		if d := s.Decryption; d != nil {
			dec := &config.Decryption{Provider: d.Provider}
			if d.SecretRef != nil {
				dec.KeySecret = &config.SecretRef{Namespace: o.namespace, Name: d.SecretRef.Name}
			}
			if dec.Provider == "sops" && dec.KeySecret != nil {
				a.Decryption = dec
			} else {
				untranslated = append(untranslated, fmt.Sprintf("%s: decryption without a sops provider and a secretRef", o))
			}
		}
		a.HealthChecks = s.HealthCheckExprs
		for _, f := range []struct {
			set  bool
			what string
		}{
			{len(s.Components) > 0, "components (kustomize components added to the path): add them to the overlay's kustomization"},
			{len(s.Patches) > 0, "patches: put them in the overlay's kustomization"},
			{len(s.Images) > 0, "images: put them in the overlay's kustomization"},
			{s.NamePrefix != "" || s.NameSuffix != "", "namePrefix/nameSuffix: put them in the overlay's kustomization"},
			{s.CommonMetadata != nil, "commonMetadata: put labels and annotations in the overlay's kustomization"},
			{s.KubeConfig != nil, "kubeConfig (a remote cluster): set the app's kubeconfigSecret"},
			{s.ServiceAccountName != "", "serviceAccountName (impersonation): roleout applies with its own identity"},
			{s.Suspend, "suspend: true: run roleout suspend for the app"},
		} {
			if f.set {
				untranslated = append(untranslated, fmt.Sprintf("%s: %s", o, f.what))
			}
		}
		apps = append(apps, a)
	}
	for _, hr := range g.others {
		untranslated = append(untranslated, fmt.Sprintf("%s: its chart is not rendered by roleout (kustomize's helmCharts are); it is applied as it is and needs Flux's helm-controller", hr))
	}
	return apps, interval, untranslated
}

// fluxKey identifies a Kustomization for dependsOn: namespace/name and
// the directory of its file (one cluster's).
func fluxKey(o gitopsObject) string {
	return o.namespace + "/" + o.name + "@" + dirOf(o.file)
}

// findFluxName finds the app of Kustomization ns/name in any directory.
func findFluxName(nameOf map[string]string, ns, name string) (string, bool) {
	for k, v := range nameOf {
		if strings.HasPrefix(k, ns+"/"+name+"@") {
			return v, true
		}
	}
	return "", false
}

func dirOf(file string) string {
	i := strings.LastIndex(file, "/")
	if i < 0 {
		return "."
	}
	return file[:i]
}

// lastDir is the name of the directory of file ("clusters/staging/x.yaml"
// → "staging").
func lastDir(file string) string {
	d := dirOf(file)
	if i := strings.LastIndex(d, "/"); i >= 0 {
		return d[i+1:]
	}
	return d
}
