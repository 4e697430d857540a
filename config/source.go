package config

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Source is the git repository the agent polls. Exactly one of
// Branch, Tag, Semver and Commit names what to follow.
type Source struct {
	URL          string        `json:"url"`
	Branch       string        `json:"branch,omitempty"`
	Tag          string        `json:"tag,omitempty"`
	Semver       string        `json:"semver,omitempty"`
	Commit       string        `json:"commit,omitempty"`
	Auth         Auth          `json:"auth,omitempty"`
	Verify       *Verify       `json:"verify,omitempty"`
	PullRequests *PullRequests `json:"pullRequests,omitempty"`
	// MaxCheckoutBytes and MaxCheckoutEntries bound each checkout of
	// the source and of pull-request heads: bytes written (one blob under
	// many paths counts once) and files, links and directories. Default
	// 512 MiB and 100,000.
	MaxCheckoutBytes   int64 `json:"maxCheckoutBytes,omitempty"`
	MaxCheckoutEntries int   `json:"maxCheckoutEntries,omitempty"`
}

// Auth names files holding git credentials.
type Auth struct {
	// UsernameEnv, PasswordEnv and TokenEnv name environment variables
	// that hold the credentials, for when files are not at hand.
	UsernameEnv    string `json:"usernameEnv,omitempty"`
	PasswordEnv    string `json:"passwordEnv,omitempty"`
	TokenEnv       string `json:"tokenEnv,omitempty"`
	UsernameFile   string `json:"usernameFile,omitempty"`
	PasswordFile   string `json:"passwordFile,omitempty"`
	TokenFile      string `json:"tokenFile,omitempty"`
	SSHKeyFile     string `json:"sshKeyFile,omitempty"`
	KnownHostsFile string `json:"knownHostsFile,omitempty"`
}

// Verify requires signed commits.
type Verify struct {
	Mode    string   `json:"mode,omitempty"` // head or tag
	PGPKeys []string `json:"pgpKeys,omitempty"`
	SSHKeys []string `json:"sshKeys,omitempty"`
}

// PullRequests lists the ref globs whose heads get previews.
type PullRequests struct {
	Refs []string `json:"refs"`
	// ServiceAccount ("namespace/name") is the identity previews read the
	// cluster as: the agent impersonates it on each app's cluster. It
	// needs get and list in the app's namespaces, and patch and create
	// for server-side dry runs (every preview request is a dry run); what
	// it may not read or dry-run is compared offline. Unset, previews
	// never read the cluster: they diff against the last status in git.
	ServiceAccount string `json:"serviceAccount,omitempty"`
	// MaxHeadsPerPoll bounds the heads previewed after one poll; the rest
	// wait for the next, newest first and in turn across authors, and
	// are never recorded as failed for waiting. Default 20.
	MaxHeadsPerPoll int `json:"maxHeadsPerPoll,omitempty"`
	// MaxTimePerPoll bounds the time previews take after one poll: no
	// head starts once it has passed (one that started finishes).
	// Default 2m.
	MaxTimePerPoll metav1.Duration `json:"maxTimePerPoll,omitempty"`
}

// Default bounds of the previews made after one poll.
const (
	DefaultPreviewHeadsPerPoll = 20
	DefaultPreviewTimePerPoll  = 2 * time.Minute
)

// HeadsPerPoll is MaxHeadsPerPoll, or its default.
func (p *PullRequests) HeadsPerPoll() int {
	if p == nil || p.MaxHeadsPerPoll <= 0 {
		return DefaultPreviewHeadsPerPoll
	}
	return p.MaxHeadsPerPoll
}

// TimePerPoll is MaxTimePerPoll, or its default.
func (p *PullRequests) TimePerPoll() time.Duration {
	if p == nil || p.MaxTimePerPoll.Duration <= 0 {
		return DefaultPreviewTimePerPoll
	}
	return p.MaxTimePerPoll.Duration
}
