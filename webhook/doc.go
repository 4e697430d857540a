// Package webhook verifies the deliveries that ask the agent to poll at
// once (POST /hook): roleout's own signature (a timestamp and the body,
// HMAC-SHA256) and the forge form (GitHub, Gitea and Forgejo sign the
// body), each delivery accepted once. It holds no agent state: the
// caller hands it a secret and what to call on a good delivery.
//
// It imports nothing of roleout.
package webhook
