package object

// The roleout.dev labels and annotations, declared here once: every
// package names them object.AppLabel, object.RoleAnnotation, ….
const (
	// AppLabel is set on every object an app applies and on its role
	// revisions: the app's name.
	AppLabel = "roleout.dev/app"
	// RoleLabel is the object's role (and a role revision's).
	RoleLabel = "roleout.dev/role"
	// TemplateHashLabel is a role revision's template hash.
	TemplateHashLabel = "roleout.dev/template-hash"
	// SourceAnnotation records the source revision a role revision was
	// first rendered from.
	SourceAnnotation = "roleout.dev/source-revision"
	// RoleAnnotation and UpgradeOrderAnnotation place an object into a
	// role and order it (roles from annotations).
	RoleAnnotation         = "roleout.dev/role"
	UpgradeOrderAnnotation = "roleout.dev/upgrade-order"
	// PruneAnnotation "true" lets prune delete a persistent object, where
	// the app's config honours it (allowedAnnotations); "false" keeps any.
	PruneAnnotation = "roleout.dev/prune"
	// AdoptAnnotation "true" lets an app take over the object, where the
	// app's config honours it (allowedAnnotations).
	AdoptAnnotation = "roleout.dev/adopt"
	// CreatedByAnnotation names the app that created a Namespace. Only
	// the applier writes it (content's own is dropped), and prune deletes
	// only the Namespaces their app created.
	CreatedByAnnotation = "roleout.dev/created-by"
	// RecreateAnnotation "true" lets roleout delete and recreate the
	// object when a change touches an immutable field.
	RecreateAnnotation = "roleout.dev/recreate"
	// SopsAnnotation is set by roleout, never taken from content, on a
	// Secret decrypted from SOPS and on its preview: a JSON object of
	// each data and stringData key's fingerprint, a digest of its
	// ciphertext in git. Records and template hashes show those instead
	// of digests of the plaintext, so that a preview, which never
	// decrypts, records the Secret as its rollout does.
	SopsAnnotation = "roleout.dev/sops-ciphertext"
)

// Internal annotations: set by roleout on rendered or restored objects,
// read and removed by the planner (render/plan) before anything is
// hashed, recorded or applied. Every annotation under the prefix is
// removed there, so the prefix is reserved.
const (
	// InternalAnnotationPrefix is the reserved prefix.
	InternalAnnotationPrefix = "internal.roleout.dev/"
	// SourcePathAnnotation is an object's source path: slash-separated,
	// relative to the repository root.
	SourcePathAnnotation = InternalAnnotationPrefix + "source-path"
	// RestoredRoleAnnotation puts an object a rollback restored into the
	// role it was restored for, whatever the role's criteria say.
	RestoredRoleAnnotation = InternalAnnotationPrefix + "restored-role"
)
