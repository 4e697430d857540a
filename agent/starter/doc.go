// Package starter writes a starter agent configuration from a
// repository, for `roleout init`: the source (URL and branch), one app
// per kustomize overlay (a kustomization no other one references) and,
// for an overlay made of several bases, one role per base. With an
// Inspector (the agent's render and plan), it proposes from the objects
// each app renders: roles only for bases whose objects go into waves,
// their upgradeOrder from what the objects need of each other
// (render/order), the kinds and namespaces the app writes, the apps it
// depends on for its CRDs, and, for each app, what stands between it and
// a plan (needs); then it plans every app as written and adds why a plan
// fails to its needs. What it writes is a proposal to review, and says
// so; it always loads with config.Parse.
package starter
