// Package order reads from an app's objects which of them must exist
// before which, so that a rollout in waves never waits on something a
// later wave brings: the inference behind `roleout init`'s proposed
// upgradeOrder and behind the warnings of `roleout plan` and previews.
//
// # Rules
//
// Needs finds, among the objects it is given (an object outside them is
// never needed: it is the cluster's), these needs, each naming the
// object that has it, the one it needs and why:
//
//  1. References of a pod. A pod template, wherever it sits (a
//     Deployment, a StatefulSet, a CronJob, a LeaderWorkerSet, any
//     custom kind that embeds one), uses its ServiceAccount, the
//     ConfigMaps and Secrets of its volumes, projected volumes, envFrom,
//     env and imagePullSecrets, and its PersistentVolumeClaims, in its
//     own namespace. A reference marked optional is no need: the pod
//     starts without it.
//  2. Secrets made by another object. A Secret the app does not hold but
//     a cert-manager Certificate (spec.secretName), a SealedSecret or an
//     ExternalSecret (spec.target.name) of the same namespace makes is
//     needed through that object.
//  3. RBAC. A pod's ServiceAccount is granted its rights by the
//     RoleBindings and ClusterRoleBindings that name it: the pod needs
//     them, and each binding needs the Role or ClusterRole it refers to.
//  4. Webhooks. A validating or mutating webhook configuration, and an
//     APIService, call a Service: they need it and the workloads whose
//     pods it selects (until those run, every call fails). The
//     annotation cert-manager.io/inject-ca-from needs its Certificate.
//  5. Controllers. A custom resource needs the workloads that act on it:
//     those whose ServiceAccount a (Cluster)RoleBinding grants a Role or
//     ClusterRole that names the resource's API group and resource
//     explicitly (a wildcard group is no controller of anything in
//     particular). A custom resource whose CustomResourceDefinition the
//     objects do not hold needs the objects that install operators (an
//     OLM Subscription, a Flux HelmRelease): they bring its CRD and
//     controller.
//  6. Issuers. A cert-manager Certificate needs its Issuer or
//     ClusterIssuer.
//
// Check compares needs with the waves objects go in and returns each
// need that a later wave meets (Late): those are rollouts that cannot
// become healthy until the later wave is applied, and may never be.
//
// The package is pure: no I/O, no logging. It imports internal/object
// only.
package order
