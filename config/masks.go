package config

import (
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/roleout/roleout/internal/secrets"
)

// DefaultMaskKeySecret names the Secret the agent keeps its mask key in,
// in its own namespace on its home cluster.
const DefaultMaskKeySecret = "roleout-mask-key"

// Masks chooses how Secret values are masked wherever roleout
// records or shows them: the status branch, ControllerRevisions, diffs,
// previews, template hashes and applied hashes (docs/design.md, "Safety
// and trust", Secret values). The key never enters git.
type Masks struct {
	// Mode is "hmac" (default): a masked value is a keyed digest,
	// masked:hmac-sha256:<24 hex>, which changes when the value changes;
	// or "changeMarkers": records hold masked:value and diffs say
	// masked:changed or masked:unchanged, with no digest at all. Both
	// modes key template hashes and revision names with the key.
	Mode secrets.Mode `json:"mode,omitempty"`
	// KeyFile, when set, holds the key (at least 16 bytes; a trailing
	// newline is dropped), and no key Secret is made.
	KeyFile string `json:"keyFile,omitempty"`
	// KeySecret names the Secret that holds the key when KeyFile is
	// unset, in the agent's namespace (status.clusterRevisions.namespace,
	// else the namespace the agent runs in, else default) on its home
	// cluster. The agent creates it with a random 32-byte key when absent.
	// Default roleout-mask-key.
	KeySecret string `json:"keySecret,omitempty"`
}

// validate checks the mode and the key Secret's name.
func (c Masks) validate(add func(field, format string, args ...any)) {
	if c.Mode != "" && c.Mode != secrets.MaskHMAC && c.Mode != secrets.MaskChangeMarkers {
		add("masks.mode", "must be %s or %s, got %q", secrets.MaskHMAC, secrets.MaskChangeMarkers, c.Mode)
	}
	if c.KeySecret != "" && len(validation.IsDNS1123Subdomain(c.KeySecret)) > 0 {
		add("masks.keySecret", "must be a Secret name, got %q", c.KeySecret)
	}
	if c.KeySecret != "" && c.KeyFile != "" {
		add("masks", "set keyFile or keySecret, not both")
	}
}

// KeySecretName returns the name of the key Secret.
func (c Masks) KeySecretName() string {
	if c.KeySecret != "" {
		return c.KeySecret
	}
	return DefaultMaskKeySecret
}
