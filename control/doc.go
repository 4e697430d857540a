// Package control is the control ConfigMap: the one object through which
// roleout suspend, resume and reconcile reach the agents of an install,
// kept in the agent's namespace on its home cluster and never in git
// (anyone who can push could otherwise stop rollouts).
//
// The CLI writes it (Suspend, Resume, RequestReconcile, Read); an agent
// keeps a Copy of it, live through a watch under roleout run and read once
// per poll otherwise, and asks the Copy whether an app is held. A
// ConfigMap that carries roleout.dev/app was applied from git by an app
// and is ignored.
package control
