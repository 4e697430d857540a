// Package drift keeps each app's drift while the agent runs: it watches
// the metadata of what an app applied (through the app's cluster, by the
// app's label) and compares roleout's field ownership with the baseline,
// what roleout applied. An object deleted, a field another manager took
// or one that lost its owner is drift; a listing after a restart compares
// the live object with the applied one, so drift made while no agent
// watched is found too. What to heal and when (selfHeal, gates, the heal
// backoff's waits) stays with the agent, which asks Due, Unrecorded and
// Reported.
package drift
