package config

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// The forges roleout posts to (forge.type).
const (
	ForgeGitHub = "github"
	ForgeGitLab = "gitlab"
	// ForgeGitea is Gitea and Forgejo, whose APIs are one.
	ForgeGitea = "gitea"
)

// Forge is where reviewers look: roleout posts each pull request's
// preview as one comment there, and a commit status per app on each
// previewed head and each commit rolled out (README, "Pull requests on
// the forge").
type Forge struct {
	// Type is github, gitlab or gitea (Forgejo too).
	Type string `json:"type"`
	// URL is the forge's API base URL: default https://api.github.com for
	// github, https://gitlab.com for gitlab; required for gitea (its web
	// URL: the API is under /api/v1). GitHub Enterprise is
	// https://HOST/api/v3.
	URL string `json:"url,omitempty"`
	// Repository is owner/name (GitLab: the project's full path); default
	// the path of source.url.
	Repository string `json:"repository,omitempty"`
	// TokenFile (re-read when it changes) or TokenEnv holds the API
	// token: GitHub needs statuses and pull requests (issues) write,
	// GitLab the api scope, Gitea write:repository and write:issue.
	TokenFile string `json:"tokenFile,omitempty"`
	TokenEnv  string `json:"tokenEnv,omitempty"`
	// CommentLimit bounds one comment, in characters; past it the
	// preview is split at role boundaries into parts. Default the forge's
	// own limit (GitHub and Gitea 65,536, GitLab 1,000,000).
	CommentLimit int `json:"commentLimit,omitempty"`
}

// On reports whether a forge is configured.
func (f *Forge) On() bool { return f != nil && f.Type != "" }

// APIURL returns the forge's API base URL, its default when unset.
func (f *Forge) APIURL() string {
	switch {
	case f.URL != "":
		return strings.TrimSuffix(f.URL, "/")
	case f.Type == ForgeGitHub:
		return "https://api.github.com"
	case f.Type == ForgeGitLab:
		return "https://gitlab.com"
	}
	return ""
}

// RepositoryOr returns the repository, else the path of sourceURL
// without .git (https://host/org/config.git → org/config; an SSH URL's
// path too).
func (f *Forge) RepositoryOr(sourceURL string) string {
	if f.Repository != "" {
		return f.Repository
	}
	p := sourceURL
	if u, err := url.Parse(sourceURL); err == nil && u.Host != "" {
		p = u.Path
	} else if _, after, ok := strings.Cut(sourceURL, ":"); ok && !strings.Contains(sourceURL, "://") {
		p = after // scp-like user@host:org/config.git
	}
	return strings.TrimSuffix(strings.Trim(path.Clean("/"+p), "/"), ".git")
}

func (f *Forge) validate(sourceURL string, add func(field, format string, args ...any)) {
	if f == nil {
		return
	}
	switch f.Type {
	case ForgeGitHub, ForgeGitLab, ForgeGitea:
	case "":
		add("forge.type", "required: github, gitlab or gitea (Forgejo too)")
	default:
		add("forge.type", "must be github, gitlab or gitea (Forgejo too), got %q", f.Type)
	}
	if f.Type == ForgeGitea && f.URL == "" {
		add("forge.url", "required for gitea: the forge's base URL, such as https://gitea.example.com")
	}
	if f.URL != "" {
		if u, err := url.Parse(f.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			add("forge.url", "must be an http(s) URL such as https://gitea.example.com, got %q", f.URL)
		}
	}
	if repo := f.RepositoryOr(sourceURL); !strings.Contains(repo, "/") || strings.Contains(repo, "..") {
		add("forge.repository", "must be owner/name (GitLab: group/project), got %q: set it when source.url does not end in one", repo)
	}
	if (f.TokenFile == "") == (f.TokenEnv == "") {
		add("forge.tokenFile", "set tokenFile or tokenEnv (one): the forge's API token")
	}
	if f.CommentLimit < 0 || (f.CommentLimit > 0 && f.CommentLimit < 4096) {
		add("forge.commentLimit", "must be 4096 or more (characters), got %d", f.CommentLimit)
	}
}

// The events notifications may name.
const (
	EventStarted     = "started"
	EventSucceeded   = "succeeded"
	EventFailed      = "failed"
	EventDriftHealed = "driftHealed"
)

// AllEvents are every event, a notification's default.
var AllEvents = []string{EventStarted, EventSucceeded, EventFailed, EventDriftHealed}

// The kinds of notification (notifications[].type).
const (
	// NotifySlack posts to a Slack-compatible incoming webhook.
	NotifySlack = "slack"
	// NotifyWebhook posts a JSON event, HMAC-signed when secretFile is set.
	NotifyWebhook = "webhook"
)

// Notification sends rollout events to a chat or a webhook.
type Notification struct {
	// Type is slack or webhook.
	Type string `json:"type"`
	// URL, or URLFile (re-read when it changes; an incoming webhook's URL
	// is itself a secret), is where events go.
	URL     string `json:"url,omitempty"`
	URLFile string `json:"urlFile,omitempty"`
	// SecretFile (webhook) holds the key of the X-Roleout-Signature HMAC
	// over each body.
	SecretFile string `json:"secretFile,omitempty"`
	// Events are the events sent: started, succeeded, failed,
	// driftHealed; default all.
	Events []string `json:"events,omitempty"`
}

// Wants reports whether the notification sends event.
func (n Notification) Wants(event string) bool {
	return len(n.Events) == 0 || slices.Contains(n.Events, event)
}

func (n Notification) validate(field string, add func(field, format string, args ...any)) {
	switch n.Type {
	case NotifySlack, NotifyWebhook:
	default:
		add(field+".type", "must be slack or webhook, got %q", n.Type)
	}
	if (n.URL == "") == (n.URLFile == "") {
		add(field+".url", "set url or urlFile (one)")
	}
	if n.URL != "" {
		if u, err := url.Parse(n.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			add(field+".url", "must be an http(s) URL, got %q", n.URL)
		}
	}
	if n.SecretFile != "" && n.Type != NotifyWebhook {
		add(field+".secretFile", "only a webhook is signed")
	}
	for i, e := range n.Events {
		if !slices.Contains(AllEvents, e) {
			add(fmt.Sprintf("%s.events[%d]", field, i), "must be one of %s, got %q", strings.Join(AllEvents, ", "), e)
		}
	}
}

// ClusterName names app's own cluster in the forge's status contexts:
// its kubeconfig Secret's name, else its kubeconfig file's name without
// extension; "" for an app of the agent's cluster.
func (app App) ClusterName() string {
	switch {
	case app.KubeconfigSecret != nil:
		return app.KubeconfigSecret.Name
	case app.Kubeconfig != "":
		base := path.Base(strings.ReplaceAll(app.Kubeconfig, "\\", "/"))
		return strings.TrimSuffix(base, path.Ext(base))
	}
	return ""
}
