package plan

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/model"
)

// hasCriteria reports whether any criterion is set.
func hasCriteria(s model.RoleSpec) bool {
	return s.Selector != nil || len(s.Kinds) > 0 || len(s.Names) > 0 || len(s.Paths) > 0 || len(s.Annotations) > 0
}

// matches reports whether the spec claims o, whose source path (from
// the render, "" when unknown) is src: o matches every criterion the
// spec sets. A spec with none claims nothing.
func matches(s model.RoleSpec, o *unstructured.Unstructured, src string) bool {
	if !hasCriteria(s) {
		return false
	}
	if len(s.Kinds) > 0 && !slices.Contains(s.Kinds, o.GetKind()) {
		return false
	}
	if s.Selector != nil && !s.Selector.Matches(labels.Set(o.GetLabels())) {
		return false
	}
	if len(s.Names) > 0 && !slices.ContainsFunc(s.Names, func(p string) bool { return nameMatches(p, o) }) {
		return false
	}
	if len(s.Paths) > 0 && !slices.ContainsFunc(s.Paths, func(p string) bool { return pathUnder(src, p) }) {
		return false
	}
	ann := o.GetAnnotations()
	for k, values := range s.Annotations {
		if !slices.Contains(values, ann[k]) {
			return false
		}
	}
	return true
}

// nameMatches matches pattern against o's name, or against
// namespace/name when the pattern has a "/" (namespaced objects only).
func nameMatches(pattern string, o *unstructured.Unstructured) bool {
	subject := o.GetName()
	if strings.Contains(pattern, "/") {
		if o.GetNamespace() == "" {
			return false
		}
		subject = o.GetNamespace() + "/" + subject
	}
	ok, err := path.Match(pattern, subject)
	return err == nil && ok
}

// pathUnder reports whether src is dir or lies under it.
func pathUnder(src, dir string) bool {
	dir = strings.TrimSuffix(dir, "/")
	return src != "" && (src == dir || strings.HasPrefix(src, dir+"/"))
}

// check refuses criteria that can never be matched as written: a
// malformed name pattern, a path that is not clean and relative.
func check(s model.RoleSpec) error {
	for _, p := range s.Names {
		if _, err := path.Match(p, ""); err != nil || p == "" || strings.Count(p, "/") > 1 {
			return fmt.Errorf("role %s: names pattern %q is not a shell pattern of a name or namespace/name", s.Name, p)
		}
	}
	for _, p := range s.Paths {
		if msg := model.CheckRepoPath(p); msg != "" {
			return fmt.Errorf("role %s: paths entry %q: %s", s.Name, p, msg)
		}
	}
	return nil
}

// describeMatch says what the spec claims, for errors: every criterion
// it sets.
func describeMatch(s model.RoleSpec) string {
	var parts []string
	if s.Selector != nil {
		parts = append(parts, fmt.Sprintf("selector %q", s.Selector.String()))
	}
	if len(s.Kinds) > 0 {
		parts = append(parts, "kinds ["+strings.Join(s.Kinds, ", ")+"]")
	}
	if len(s.Names) > 0 {
		parts = append(parts, "names ["+strings.Join(s.Names, ", ")+"]")
	}
	if len(s.Paths) > 0 {
		parts = append(parts, "paths ["+strings.Join(s.Paths, ", ")+"]")
	}
	keys := make([]string, 0, len(s.Annotations))
	for k := range s.Annotations {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("annotation %s in %q", k, s.Annotations[k]))
	}
	return strings.Join(parts, ", ")
}

// groupRoles assigns every object to a role: the role a rollback
// restored it into (RestoredRoleAnnotation), else its role annotation,
// else the one config role whose criteria it matches, else the default
// role. Roles come in declaration order: config roles first, then roles
// met in objs. Every role name, configured or annotated, must pass
// CheckRoleName. marks are the objects' internal annotations (takeMarks).
func groupRoles(objs []*unstructured.Unstructured, app string, specs []model.RoleSpec, marks map[*unstructured.Unstructured]mark) ([]*model.Role, error) {
	var roles []*model.Role
	byName := map[string]*model.Role{}
	get := func(name string) *model.Role {
		if r := byName[name]; r != nil {
			return r
		}
		r := &model.Role{Name: name}
		byName[name] = r
		roles = append(roles, r)
		return r
	}
	var errs []error
	for _, s := range specs {
		if err := model.CheckRoleName(app, s.Name); err != nil {
			return nil, fmt.Errorf("app config role: %w", err)
		}
		if err := check(s); err != nil {
			return nil, fmt.Errorf("app config %w", err)
		}
		get(s.Name)
	}
	claims := map[string]bool{} // config roles whose criteria match some object
	sourced := false            // some object has a source path
	for _, o := range objs {
		m := marks[o]
		sourced = sourced || m.source != ""
		var matched []string
		for _, s := range specs {
			if matches(s, o, m.source) {
				matched = append(matched, s.Name)
				claims[s.Name] = true
			}
		}
		name, from := m.restored, object.RestoredRoleAnnotation
		if name == "" {
			name, from = o.GetAnnotations()[object.RoleAnnotation], object.RoleAnnotation
		}
		if m.restored != "" {
			claims[m.restored] = true // what the rollback restored stands for the role's criteria
		}
		switch {
		case name != "":
			if err := model.CheckRoleName(app, name); err != nil {
				errs = append(errs, fmt.Errorf("%s: annotation %s: %w", Describe(o), from, err))
				continue
			}
		case len(matched) == 0:
			name = model.DefaultRole
		case len(matched) == 1:
			name = matched[0]
		default:
			errs = append(errs, fmt.Errorf("%s matches roles %s of the app config: give it a %s annotation, or narrow the roles' selector, kinds, names or paths so that one claims it",
				Describe(o), strings.Join(matched, " and "), object.RoleAnnotation))
			continue
		}
		r := get(name)
		r.Objects = append(r.Objects, o)
	}
	for _, s := range specs {
		if hasCriteria(s) && !claims[s.Name] {
			hint := ""
			if len(s.Paths) > 0 && !sourced {
				hint = " (no object of the render has a source path: it was rendered without origins, or only from remote bases)"
			}
			errs = append(errs, fmt.Errorf("role %s matches no object: %s matched nothing in the render%s; fix roles[].selector, kinds, names or paths of the app, or remove the role",
				s.Name, describeMatch(s), hint))
		}
	}
	var out []*model.Role
	for _, r := range roles {
		if len(r.Objects) > 0 {
			out = append(out, r)
		}
	}
	return out, errors.Join(errs...)
}
