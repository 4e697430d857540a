// Package decrypt decrypts the SOPS-encrypted Secrets of an app's
// render, after the build and in the agent: never in the render
// sandbox, whose child processes must not hold a key. It uses the SOPS
// project's own module (github.com/getsops/sops/v3: its stores, data key
// lookup through a key service, and cipher) with age identities held in
// memory, handed to SOPS through a key service of its own
// (ageKeyService). SOPS's decrypt package is not used: it reads keys
// only from environment variables and files in the home directory,
// which the sandbox's children would inherit.
//
// Only objects of kind Secret are decrypted, so that no transformer can
// carry plaintext into another kind:
//   - a Secret encrypted whole (sops encrypt --encrypted-regex
//     '^(data|stringData)$' secret.yaml), which carries SOPS's metadata in
//     a top-level sops field;
//   - a Secret whose data values are whole SOPS documents (a
//     secretGenerator's files: of an encrypted YAML, JSON, dotenv or INI
//     file, or a binary file encrypted with --input-type binary).
//
// Any other object that carries SOPS metadata is refused, as is a Secret
// whose decryption fails: the error names the object and nothing of the
// app is applied. Errors never quote data. As Flux does, the MAC is not
// checked by default (kustomize changes the metadata it covers); every
// value is still authenticated (AES-GCM with its path).
//
// It imports internal/object only.
package decrypt
