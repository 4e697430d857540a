package render

import (
	"path"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/roleout/roleout/internal/object"
)

// Source paths: where in the repository an object came from, for
// roles[].paths. kustomize records an object's origin (the file it read
// it from, relative to the overlay, or the kustomization that generated
// it) in the annotation config.kubernetes.io/origin when the overlay's
// kustomization sets buildMetadata: [originAnnotations]; krusty has no
// option for it. A render with Options.Origins serves the overlay's own
// kustomization file with that entry added (repoFS.ReadFile), turns each
// object's origin into a repository path in SourcePathAnnotation and
// removes kustomize's annotation again, as a plain build would, unless
// the user's kustomization asked for it itself. NewPlan reads and removes
// the internal annotations, so nothing applied, hashed or recorded
// carries them: a render with origins plans to the same objects and
// hashes as one without.

// originAnnotation is kustomize's origin annotation
// (api/internal/utils.OriginAnnotationKey).
const originAnnotation = "config.kubernetes.io/origin"

// withOriginAnnotations returns a kustomization file's content with
// "originAnnotations" in its buildMetadata, and whether the file asked for
// it itself. Content that is not a YAML mapping with a list (or no)
// buildMetadata is returned as it is, for kustomize to report.
func withOriginAnnotations(data []byte) ([]byte, bool) {
	rn, err := kyaml.Parse(string(data))
	if err != nil || rn.YNode().Kind != kyaml.MappingNode {
		return data, false
	}
	field, err := rn.Pipe(kyaml.Lookup("buildMetadata"))
	if err != nil {
		return data, false
	}
	entry := kyaml.NewScalarRNode(types.OriginAnnotations).YNode()
	switch {
	case kyaml.IsMissingOrNull(field):
		seq := kyaml.NewListRNode(types.OriginAnnotations)
		if err := rn.PipeE(kyaml.SetField("buildMetadata", seq)); err != nil {
			return data, false
		}
	case field.YNode().Kind == kyaml.SequenceNode:
		for _, n := range field.YNode().Content {
			if n.Value == types.OriginAnnotations {
				return data, true
			}
		}
		field.YNode().Content = append(field.YNode().Content, entry)
	default:
		return data, false
	}
	out, err := rn.String()
	if err != nil {
		return data, false
	}
	return []byte(out), false
}

// serveKustomization is ReadFile's hook: with origins on, the overlay's
// own kustomization file asks for origin annotations. p is the path as
// asked for; the overlay directory is compared resolved, and the file
// itself may be a symlink.
func (fs *repoFS) serveKustomization(p string, data []byte) []byte {
	if fs.origins == "" || !isKustomization(p) {
		return data
	}
	if dir, err := filepath.Abs(filepath.Dir(p)); err != nil || fs.resolve(dir) != fs.origins {
		return data
	}
	data, asked := withOriginAnnotations(data)
	fs.userOrigins = fs.userOrigins || asked
	return data
}

// takeOrigins returns each resource's source path ("" when it has none:
// no origin, or a remote one), and removes kustomize's origin annotation
// unless the overlay's own kustomization asked for it. overlay is the
// overlay directory relative to the root.
func (fs *repoFS) takeOrigins(m resmap.ResMap, overlay string) ([]string, error) {
	var out []string
	for _, res := range m.Resources() {
		origin, err := res.GetOrigin()
		if err != nil {
			return nil, err
		}
		out = append(out, fs.sourcePath(origin, overlay))
		if !fs.userOrigins {
			if err := res.SetOrigin(nil); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// sourcePath turns an origin (paths relative to the overlay) into a path
// relative to the repository root, "" for none or a remote one.
func (fs *repoFS) sourcePath(o *resource.Origin, overlay string) string {
	if o == nil || o.Repo != "" {
		return ""
	}
	p := o.Path
	if p == "" {
		p = o.ConfiguredIn // a generated object: its kustomization
	}
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		rel, ok := fs.rel(filepath.Clean(p))
		if !ok {
			return ""
		}
		return rel
	}
	full := path.Join(overlay, filepath.ToSlash(p))
	if full == ".." || strings.HasPrefix(full, "../") {
		return ""
	}
	return full
}

// setSourcePath records an object's source path in SourcePathAnnotation,
// replacing any the object was written with.
func setSourcePath(o *unstructured.Unstructured, src string) {
	ann := o.GetAnnotations()
	if _, ok := ann[object.SourcePathAnnotation]; !ok && src == "" {
		return
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[object.SourcePathAnnotation] = src
	if src == "" {
		delete(ann, object.SourcePathAnnotation)
	}
	object.SetAnnotations(o, ann)
}
