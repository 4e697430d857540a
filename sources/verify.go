package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// VerifyOptions requires signed commits (or tags) before a revision is
// handed on.
type VerifyOptions struct {
	// Mode is "head" (the commit must be signed) or "tag" (the annotated
	// tag followed must be signed).
	Mode string
	// PGPKeyFiles hold armored PGP public keys; SSHKeyFiles hold SSH
	// public keys, one per line, in authorized_keys or allowed-signers
	// form. They are read at every verification.
	PGPKeyFiles, SSHKeyFiles []string
}

// VerificationError says why a revision was refused: it names the commit
// (or tag), the signer when there is one, and the reason.
type VerificationError struct {
	Object string // "commit 1a2b3c4" or "tag v1.2.0"
	Signer string
	Reason string
}

func (e *VerificationError) Error() string {
	msg := fmt.Sprintf("%s is not trusted: %s", e.Object, e.Reason)
	if e.Signer != "" {
		msg += " (signed by " + e.Signer + ")"
	}
	return msg + "; it is never applied"
}

// sshNamespace is the namespace git signs commits and tags in.
const sshNamespace = "git"

// verifyObject checks the signature over payload (the object encoded
// without its signature).
func verifyObject(what, signature string, payload []byte, v *VerifyOptions) error {
	if strings.TrimSpace(signature) == "" {
		return &VerificationError{Object: what, Reason: "it is not signed"}
	}
	if strings.HasPrefix(signature, "-----BEGIN SSH SIGNATURE-----") {
		return verifySSH(what, signature, payload, v.SSHKeyFiles)
	}
	return verifyPGP(what, signature, payload, v.PGPKeyFiles)
}

func verifySSH(what, signature string, payload []byte, keyFiles []string) error {
	sig, err := sshsig.Unarmor([]byte(signature))
	if err != nil {
		return &VerificationError{Object: what, Reason: "its SSH signature does not parse: " + err.Error()}
	}
	signer := ssh.FingerprintSHA256(sig.PublicKey)
	keys, err := readSSHKeys(keyFiles)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if bytes.Equal(k.Marshal(), sig.PublicKey.Marshal()) {
			if err := sshsig.Verify(bytes.NewReader(payload), sig, k, sig.HashAlgorithm, sshNamespace); err != nil {
				return &VerificationError{Object: what, Signer: signer, Reason: "the SSH signature does not match: " + err.Error()}
			}
			return nil
		}
	}
	return &VerificationError{Object: what, Signer: signer, Reason: "the SSH key is not one of source.verify.sshKeys"}
}

func verifyPGP(what, signature string, payload []byte, keyFiles []string) error {
	signer := pgpIssuer(signature)
	var ring bytes.Buffer
	for _, f := range keyFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read source.verify.pgpKeys file: %w", err)
		}
		ring.Write(data)
		ring.WriteByte('\n')
	}
	if ring.Len() == 0 {
		return &VerificationError{Object: what, Signer: signer, Reason: "it has a PGP signature and no source.verify.pgpKeys are configured"}
	}
	if err := verifyPGPPayload(ring.String(), signature, payload); err != nil {
		return &VerificationError{Object: what, Signer: signer, Reason: "the PGP signature is not from a trusted key: " + err.Error()}
	}
	return nil
}

// pgpIssuer returns the key ID that made an armored PGP signature.
func pgpIssuer(signature string) string {
	block, err := armor.Decode(strings.NewReader(signature))
	if err != nil {
		return ""
	}
	p, err := packet.Read(block.Body)
	if err != nil {
		return ""
	}
	if s, ok := p.(*packet.Signature); ok && s.IssuerKeyId != nil {
		return fmt.Sprintf("PGP key %016X", *s.IssuerKeyId)
	}
	return ""
}

func readSSHKeys(files []string) ([]ssh.PublicKey, error) {
	var out []ssh.PublicKey
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read source.verify.sshKeys file: %w", err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			fields := strings.Fields(line)
			for i, field := range fields {
				if strings.HasPrefix(field, "ssh-") || strings.HasPrefix(field, "ecdsa-") || strings.HasPrefix(field, "sk-") {
					k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(strings.Join(fields[i:], " ")))
					if err == nil {
						out = append(out, k)
					}
					break
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("source.verify.sshKeys holds no SSH public key")
	}
	return out, nil
}

// verifyRevision checks the signature rev needs under v: the commit's
// (mode head) or the annotated tag's (mode tag).
func (s *GitSource) verifyRevision(repo *git.Repository, rev Revision) error {
	v := s.opts.Verify
	switch v.Mode {
	case "", "head":
		c, err := repo.CommitObject(plumbing.NewHash(rev.Commit))
		if err != nil {
			return err
		}
		payload, err := encodeWithoutSignature(c)
		if err != nil {
			return err
		}
		return verifyObject("commit "+rev.Short(), c.PGPSignature, payload, v)
	case "tag":
		if s.opts.Ref.Tag == "" && s.opts.Ref.Semver == "" {
			return errors.New("source.verify.mode tag needs source.tag or source.semver")
		}
		ref, err := repo.Reference(plumbing.NewTagReferenceName(rev.Ref), true)
		if err != nil {
			return &VerificationError{Object: "tag " + rev.Ref, Reason: "it is not in the cache: " + err.Error()}
		}
		tag, err := repo.TagObject(ref.Hash())
		if err != nil {
			return &VerificationError{Object: "tag " + rev.Ref, Reason: "it is a lightweight tag; only an annotated tag carries a signature"}
		}
		payload, err := encodeWithoutSignature(tag)
		if err != nil {
			return err
		}
		return verifyObject("tag "+rev.Ref, tag.PGPSignature, payload, v)
	}
	return fmt.Errorf("source.verify.mode %q: use head or tag", v.Mode)
}

// signedObject is a commit or tag, which can encode itself without its
// signature: the bytes the signature covers.
type signedObject interface {
	EncodeWithoutSignature(plumbing.EncodedObject) error
}

func encodeWithoutSignature(o signedObject) ([]byte, error) {
	obj := &plumbing.MemoryObject{}
	if err := o.EncodeWithoutSignature(obj); err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// verifyPGPPayload checks an armored detached signature over payload
// against an armored key ring.
func verifyPGPPayload(keyring, signature string, payload []byte) error {
	ring, err := openpgp.ReadArmoredKeyRing(strings.NewReader(keyring))
	if err != nil {
		return fmt.Errorf("read the PGP keys: %w", err)
	}
	_, err = openpgp.CheckArmoredDetachedSignature(ring, bytes.NewReader(payload), strings.NewReader(signature), nil)
	return err
}
