// Package plan makes an app's plan (model.Plan) from its rendered
// objects: it checks them, groups them into roles, orders the roles into
// waves, decides each role's revision against its history and predicts
// what the workloads' controllers will make of them. New takes
// everything it needs as two values, the app's config and history
// (Options) and what the agent gathered of the cluster beforehand
// (Facts: kind scopes, collision counts, CRDs, versions), so a plan is
// made in one call and reads nothing itself.
//
// # Planning rules
//
// New is a pure function of the rendered objects, the app's config
// (Options) and what was gathered of the cluster (Facts):
//
//  1. Prerequisites. CustomResourceDefinitions, Namespaces,
//     PriorityClasses, StorageClasses, ClusterRoles and
//     ClusterRoleBindings go in a prerequisite step before the first wave,
//     whatever their role.
//  2. Validity. Every object is checked as the API server would check
//     the server-side apply that creates it (render/validate.Validate):
//     a kind of Kubernetes v1.37.2 against its OpenAPI schema and create
//     validation, a custom resource against its CRD (the render's, else
//     the cluster's, Facts.CRDs, else one roleout carries). One
//     object the API server would refuse fails the whole plan, naming
//     each object, field and reason (InvalidObjectsError): nothing of the
//     app is predicted or applied. An object of a kind with no schema at
//     hand is not checked; the plan lists it (Plan.Unchecked).
//  3. Membership. An object a rollback restored belongs to the role it
//     was restored for (object.RestoredRoleAnnotation). Else its
//     roleout.dev/role annotation names its role: the annotation wins
//     over every config role. An object without one joins the config
//     role that claims it: it matches every criterion the role sets
//     (RoleSpec: selector, kinds, names, paths by the object's source
//     path); two claiming roles are an error naming the object and both
//     roles, whatever their order. Anything else joins the role
//     "default". A config role with criteria that match no object of the
//     render is an error naming the role and every criterion (a typo is
//     never silence). A role name, annotated or configured, is a DNS
//     label short enough that <app>-<role>-<hash> is an object name
//     (CheckRoleName); any other is an error naming the object and the
//     value. The internal annotations (marks.go) are removed first:
//     objects are planned, hashed and recorded without them.
//  4. Order. A role's upgradeOrder comes from the app config, else from
//     the roleout.dev/upgrade-order annotation of its objects. Objects of
//     one role that disagree with each other or with the config are an
//     error naming them; a negative or non-numeric value is an error.
//  5. Unset orders. With unorderedRoles First (the default) an unset
//     upgradeOrder counts as 0; with Last, roles without one form a wave
//     after every ordered role.
//  6. Waves. Lower upgradeOrder goes first; roles with equal values form
//     one wave. Ties keep declaration order: config roles in config order,
//     then roles in the order their first object was rendered.
//  7. Hashes. Every role and the prerequisite step carry a template hash
//     (render/revision.TemplateHash) over their objects, Secret values
//     by their keyed mask (Options.Masker), never in plaintext. A role
//     whose objects changed in any way, losing one included, gets a new
//     hash and is applied.
//  8. Prune. Objects of the previous inventory (what the app applied
//     last) that the render no longer has are deleted after the last
//     wave, in reverse apply order: the highest upgradeOrder first,
//     later objects of a wave before earlier ones, and the prerequisites
//     last, also in reverse. A role that loses all its objects leaves the
//     waves; its objects are pruned.
//  9. Needs. What the objects need of each other (render/order: a pod
//     its ServiceAccount, bindings, ConfigMaps, Secrets and claims, a
//     webhook the pods it calls, a custom resource its controller) is
//     checked against the waves: a need that a later wave meets is a
//     warning of the plan (Plan.Late), never an error, since the
//     rollout may still converge once the later wave is applied.
//
// # Destinations
//
// CheckDestinations confines an app (docs/design.md, "Safety and trust",
// Destinations): every object must be in an allowed namespace and of an
// allowed kind, else the render is refused as a whole. Scope (namespaced
// or cluster-scoped) comes from KindScopes, which DefaultNamespace uses too:
// the cluster's discovery, then Kubernetes' own kinds, then the render's
// CRDs; a kind of unknown scope is refused.
//
// # Destinations
//
// With Options.Destinations set, New first confines the app
// (CheckDestinations; docs/design.md, "Safety and trust", Destinations):
// every object must be in an allowed namespace and of an allowed kind,
// else the render is refused as a whole (*RefusedError). Scope
// (namespaced or cluster-scoped) comes from KindScopes, which
// DefaultNamespace uses too: the cluster's discovery, then Kubernetes'
// own kinds, then the render's CRDs; a kind of unknown scope is refused.
//
// Planning does no I/O and starts no process: plan imports no build,
// sandbox or Helm code (render), which internal/layout's
// TestLightVocabulary checks. It must not import agent, sources, apply
// or render.
package plan
