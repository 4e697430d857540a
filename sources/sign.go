package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/go-git/go-git/v5/plumbing/object"
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

// readSigningKey reads status.signingKeyFile: a PGP entity or an SSH
// signer, exactly one of them not nil.
func readSigningKey(path string) (*openpgp.Entity, ssh.Signer, error) {
	data, err := readConfigFile("status.signingKeyFile", path)
	if err != nil {
		return nil, nil, err
	}
	if strings.Contains(string(data), "PGP PRIVATE KEY BLOCK") {
		ring, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(data))
		if err != nil || len(ring) == 0 {
			return nil, nil, fmt.Errorf("status.signingKeyFile: not a PGP secret key: %v", err)
		}
		return ring[0], nil, nil
	}
	signer, err := ssh.ParsePrivateKey(data)
	if err != nil {
		return nil, nil, fmt.Errorf("status.signingKeyFile: neither an armored PGP secret key nor an OpenSSH private key: %w", err)
	}
	return nil, signer, nil
}

// statusKeyNames words the refusals of a status branch commit.
var statusKeyNames = keyNames{
	noSSH:    "it has an SSH signature and status.signingKeyFile is a PGP key",
	noPGP:    "it has a PGP signature and status.signingKeyFile is an SSH key",
	otherSSH: "the SSH key is not the one of status.signingKeyFile",
}

// statusKeys returns the public half of the status signing key as the
// only trusted key: on the status branch the agent trusts what it signed
// itself, nothing else.
func statusKeys(path string) (trustedKeys, error) {
	pgp, signer, err := readSigningKey(path)
	if err != nil {
		return trustedKeys{}, err
	}
	keys := trustedKeys{names: statusKeyNames}
	if signer != nil {
		keys.ssh = []allowedSigner{{key: signer.PublicKey(), where: "status.signingKeyFile"}}
		return keys, nil
	}
	keys.pgp = openpgp.EntityList{pgp}
	return keys, nil
}

// SignCommit signs c with the private key file at path (an armored PGP
// secret key or an OpenSSH private key, without a passphrase) as git
// does; nothing when path is "".
func SignCommit(path string, c *object.Commit) error {
	if path == "" {
		return nil
	}
	pgp, signer, err := readSigningKey(path)
	if err != nil {
		return err
	}
	payload, err := encodeWithoutSignature(c)
	if err != nil {
		return err
	}
	var sig []byte
	if pgp != nil {
		var b bytes.Buffer
		err = openpgp.ArmoredDetachSign(&b, pgp, bytes.NewReader(payload), nil)
		sig = b.Bytes()
	} else {
		sig, err = sshCommitSigner{signer}.Sign(io.Reader(bytes.NewReader(payload)))
	}
	if err != nil {
		return fmt.Errorf("sign the status commit: %w", err)
	}
	c.PGPSignature = string(sig)
	return nil
}

// StatusKeys is the status signing key's public half: the only key the
// status branch's commits are checked against.
type StatusKeys struct{ keys trustedKeys }

// LoadStatusKeys reads the status signing key file at path.
func LoadStatusKeys(path string) (*StatusKeys, error) {
	keys, err := statusKeys(path)
	if err != nil {
		return nil, err
	}
	return &StatusKeys{keys: keys}, nil
}

// VerifyCommit checks that k signed c, which is named what in the
// refusal: nil when it did, the refusal otherwise; err only when c
// cannot be encoded.
func (k *StatusKeys) VerifyCommit(what string, c *object.Commit) (*VerificationError, error) {
	payload, err := encodeWithoutSignature(c)
	if err != nil {
		return nil, err
	}
	err = verifyObject(what, c.PGPSignature, payload, c.Committer.When, k.keys)
	var refused *VerificationError
	if errors.As(err, &refused) {
		return refused, nil
	}
	return nil, err
}
