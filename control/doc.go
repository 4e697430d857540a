// Package control holds the agent's own objects in its namespace on its
// home cluster, never in git (anyone who can push could otherwise use
// them):
//
//   - the control ConfigMap, the one object through which roleout
//     suspend, resume, reconcile and rollback reach the agents of an
//     install. The CLI writes it (Suspend, Resume, RequestReconcile,
//     RequestRollback, Read); an agent keeps a Copy of it, live through a
//     watch under roleout run and read once per poll otherwise, and asks
//     the Copy whether an app is held. A ConfigMap that carries
//     roleout.dev/app was applied from git by an app and is ignored;
//   - the status anchor (Anchor): the last status-branch head the agent
//     signed;
//   - the mask key Secret (LoadMasker, ReadMasker, MaskerOf): the key of
//     the HMAC that masks Secret values, made once per install;
//   - apps' kubeconfig Secrets (KubeconfigSecret, ClientConfig): read
//     from the agent's cluster, refused when they would run plugins, read
//     files or skip TLS verification.
//
// It imports config, internal/object and internal/secrets only.
package control
