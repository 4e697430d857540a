// Package notify sends rollout events to people: rollout started,
// succeeded, failed and drift healed, to a Slack-compatible incoming
// webhook (Slack, Mattermost, Rocket.Chat) or to a generic JSON webhook
// signed with an HMAC (the X-Roleout-Signature of package webhook).
// Posts go through an outbox: a chat that is down delays a message,
// never a rollout.
//
// It imports config (the notifications' settings), internal/outbox,
// status and webhook.
package notify
