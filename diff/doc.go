// Package diff compares an app's plan with what it would change: with
// the cluster by server-side dry run (Live), with the cluster as a
// pull-request preview may read it, only inside the app's namespaces
// (Preview, Scope), or offline with the last status in git (Offline,
// Recorded). Its Report is what `roleout diff` prints and previews
// embed; nothing it does writes to the cluster.
//
// It reads the cluster through Reader and takes the app as a Target, so
// it needs neither the agent nor its configuration. It imports model
// and render/revision for their types and apply for its dry run; it must
// not import agent, config, render, render/predict, sources, status or
// cmd.
package diff
