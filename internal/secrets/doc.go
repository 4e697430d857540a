// Package secrets masks Secret values wherever roleout shows or records an
// object: role revisions on the status branch and in ControllerRevisions,
// diffs, previews, template hashes and applied-hash annotations.
//
// A Masker holds a key that never enters git. In MaskHMAC mode a masked
// value is a truncated HMAC-SHA256, under that key, of the Secret's
// namespace, name, data key and value: it changes when the value changes,
// is the same for every run of one install (one key) and cannot be tested
// against guesses without the key. In MaskChangeMarkers mode records hold
// no digest at all, only a placeholder, and diffs say "changed" or
// "unchanged". In both modes identities (template hashes, revision names,
// applied hashes) are computed over the keyed form, so no hash derived from
// a plaintext value without the key leaves the agent.
//
// It is a leaf package: it imports nothing from roleout.
package secrets
