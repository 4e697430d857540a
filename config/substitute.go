package config

import (
	"fmt"
	"regexp"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation"
)

// variableRE is what a substitution variable's name must look like (as
// Flux requires: render/substitute.CheckNames).
var variableRE = regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)

// validateDecryption checks the app's decryption (field is apps[1]).
func (a *App) validateDecryption(field string, add func(field, format string, args ...any)) {
	d := a.Decryption
	if d == nil {
		return
	}
	if d.Provider != "sops" {
		add(field+".decryption.provider", "must be sops, got %q", d.Provider)
	}
	if len(d.KeyFiles) == 0 && d.KeySecret == nil {
		add(field+".decryption", "names no key: set keyFiles (files of age keys) or keySecret (a Secret whose *.agekey entries hold them)")
	}
	for i, f := range d.KeyFiles {
		if f == "" {
			add(fmt.Sprintf("%s.decryption.keyFiles[%d]", field, i), "is empty: name a file of age keys")
		}
	}
	if r := d.KeySecret; r != nil {
		if msgs := validation.IsDNS1123Subdomain(r.Name); len(msgs) > 0 {
			add(field+".decryption.keySecret.name", "%q is not a valid Secret name: %v", r.Name, msgs)
		}
		if r.Namespace != "" {
			if msgs := validation.IsDNS1123Label(r.Namespace); len(msgs) > 0 {
				add(field+".decryption.keySecret.namespace", "%q is not a valid namespace: %v", r.Namespace, msgs)
			}
		}
	}
}

// validateSubstitute checks the app's substitute and substituteFrom
// (field is apps[1]).
func (a *App) validateSubstitute(field string, add func(field, format string, args ...any)) {
	names := make([]string, 0, len(a.Substitute))
	for n := range a.Substitute {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !variableRE.MatchString(n) {
			add(field+".substitute", "%q is not a variable name: a name is a letter or _, then letters, digits and _ (as in ${cluster_name})", n)
		}
	}
	for i, r := range a.SubstituteFrom {
		f := fmt.Sprintf("%s.substituteFrom[%d]", field, i)
		if r.Kind != "ConfigMap" && r.Kind != "Secret" {
			add(f+".kind", "must be ConfigMap or Secret, got %q", r.Kind)
		}
		if msgs := validation.IsDNS1123Subdomain(r.Name); len(msgs) > 0 {
			add(f+".name", "%q is not a valid %s name: %v", r.Name, r.Kind, msgs)
		}
		if r.Namespace != "" {
			if msgs := validation.IsDNS1123Label(r.Namespace); len(msgs) > 0 {
				add(f+".namespace", "%q is not a valid namespace: %v", r.Namespace, msgs)
			}
		}
	}
}
