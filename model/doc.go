// Package model is roleout's vocabulary: what a plan is (Plan, Wave,
// Role, Workload), what plans and previews print of it (Summary and its
// parts), what an app applied (InventoryEntry), what an app's config says
// of roles and destinations (RoleSpec, Destinations, KindRule) and what a
// diff found for an object (ObjectDiff, Change). The engines that make
// these (render/plan, apply) and the packages that only read, record or
// show them (status, config, diff, forge, ui, notify) all import it.
//
// It is light: its types and their pure methods link apimachinery and
// roleout's own small leaves, and none of kustomize, Helm, go-git or
// k8s.io/kubernetes, so neither do the readers (internal/layout,
// TestLightVocabulary). It makes no plan and does no I/O. It must not
// import agent, sources, apply, render, render/plan or render/predict.
package model
