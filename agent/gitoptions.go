package agent

// How the agent reaches git: the source's credentials and options, the
// status branch's options and its anchor key.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"k8s.io/client-go/kubernetes"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/control"
	"github.com/roleout/roleout/sources"
	"github.com/roleout/roleout/status"
	"github.com/roleout/roleout/statusstore"
)

// credentials returns the source's credential files.
func credentials(cfg *config.Config) sources.Credentials {
	a := cfg.Source.Auth
	return sources.Credentials{
		UsernameFile: a.UsernameFile, PasswordFile: a.PasswordFile, TokenFile: a.TokenFile,
		UsernameEnv: a.UsernameEnv, PasswordEnv: a.PasswordEnv, TokenEnv: a.TokenEnv,
		SSHKeyFile: a.SSHKeyFile, KnownHostsFile: a.KnownHostsFile,
	}
}

// sourceOptions returns the git source of cfg.
func sourceOptions(cfg *config.Config) sources.Options {
	s := cfg.Source
	o := sources.Options{
		URL:      s.URL,
		Ref:      sources.Ref{Branch: s.Branch, Tag: s.Tag, Semver: s.Semver, Commit: s.Commit},
		Auth:     credentials(cfg),
		CacheDir: cfg.CacheDir,
		Checkout: sources.CheckoutLimits{MaxBytes: s.MaxCheckoutBytes, MaxEntries: s.MaxCheckoutEntries},
	}
	if v := s.Verify; v != nil {
		o.Verify = &sources.VerifyOptions{Mode: v.Mode, PGPKeyFiles: v.PGPKeys, SSHKeyFiles: v.SSHKeys}
	}
	return o
}

// StatusOptions returns the options of cfg's status branch as the agent
// writes it: the source's URL and credentials, the configured branch,
// author and signing key, the cache directory that keeps its local copy,
// the source's checkout limits, and the merge
// hook that keeps both sides' history records when a push races another
// writer. Programs that wire an Agent with NewWithDeps use it to get the
// same status branch.
func StatusOptions(cfg *config.Config) statusstore.Options {
	return statusstore.Options{
		URL: cfg.Source.URL, Auth: credentials(cfg), Branch: cfg.Status.Branch,
		AuthorName: cfg.Status.Author.Name, AuthorEmail: cfg.Status.Author.Email,
		SigningKeyFile: cfg.Status.SigningKeyFile, Merge: status.MergeFile, CacheDir: cfg.CacheDir,
		Limits: sources.CheckoutLimits{MaxBytes: cfg.Source.MaxCheckoutBytes, MaxEntries: cfg.Source.MaxCheckoutEntries},
	}
}

// AnchoredStatusOptions are StatusOptions with the status anchor in the
// agent's namespace on kube, the agent's cluster: how the agent reads and
// writes the branch, and how roleout run's web view reads it.
func AnchoredStatusOptions(cfg *config.Config, kube kubernetes.Interface) statusstore.Options {
	o := StatusOptions(cfg)
	o.Anchor = control.NewAnchor(kube, cfg.Status.ClusterRevisions.AgentNamespace(), anchorKey(cfg))
	return o
}

// StatusView returns cfg's status branch as the web view reads it: as
// the agent reads it, anchored on kube (the agent's cluster) unless kube
// is nil, with each app's folder read up to maxBytes (the view holds
// every app's files at once). Close it when done.
func StatusView(cfg *config.Config, kube kubernetes.Interface, maxBytes int64) *statusstore.Branch {
	o := StatusOptions(cfg)
	if kube != nil {
		o = AnchoredStatusOptions(cfg, kube)
	}
	if o.Limits.MaxBytes <= 0 || o.Limits.MaxBytes > maxBytes {
		o.Limits.MaxBytes = maxBytes
	}
	return statusstore.New(o)
}

// ReadAnchor reads cfg's status anchor on kube once, as a reader that
// must be anchored checks that it can before it reads the branch.
func ReadAnchor(ctx context.Context, cfg *config.Config, kube kubernetes.Interface) error {
	_, err := AnchoredStatusOptions(cfg, kube).Anchor.Get(ctx)
	return err
}

// anchorKey is the key of cfg's status branch in the anchor ConfigMap: one
// per repository and status branch.
func anchorKey(cfg *config.Config) string {
	sum := sha256.Sum256([]byte(sources.RedactURL(cfg.Source.URL) + "\x00" + cfg.Status.Branch))
	return "status-" + hex.EncodeToString(sum[:10])
}
