package sources

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/go-git/go-git/v5"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// sshCommitSigner signs commits as git does with gpg.format=ssh.
type sshCommitSigner struct{ s ssh.Signer }

func (g sshCommitSigner) Sign(message io.Reader) ([]byte, error) {
	sig, err := sshsig.Sign(message, g.s, sshsig.HashSHA512, sshNamespace)
	if err != nil {
		return nil, err
	}
	return sshsig.Armor(sig), nil
}

// signingOptions reads a private key file — an armored PGP secret key or
// an OpenSSH private key, without a passphrase — and sets it to sign
// commits.
func signingOptions(path string, opts *git.CommitOptions) error {
	if path == "" {
		return nil
	}
	data, err := readConfigFile("status.signingKeyFile", path)
	if err != nil {
		return err
	}
	if strings.Contains(string(data), "PGP PRIVATE KEY BLOCK") {
		ring, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(data))
		if err != nil || len(ring) == 0 {
			return fmt.Errorf("status.signingKeyFile: not a PGP secret key: %v", err)
		}
		opts.SignKey = ring[0]
		return nil
	}
	signer, err := ssh.ParsePrivateKey(data)
	if err != nil {
		return fmt.Errorf("status.signingKeyFile: neither an armored PGP secret key nor an OpenSSH private key: %w", err)
	}
	opts.Signer = sshCommitSigner{signer}
	return nil
}
