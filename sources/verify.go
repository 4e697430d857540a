package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

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
	// form (see allowedSigner for the options honoured). They are read at
	// every verification, idle polls included.
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
// without its signature); when is the object's committer or tagger date.
func verifyObject(what, signature string, payload []byte, when time.Time, keys trustedKeys) error {
	if strings.TrimSpace(signature) == "" {
		return &VerificationError{Object: what, Reason: "it is not signed"}
	}
	if strings.HasPrefix(signature, "-----BEGIN SSH SIGNATURE-----") {
		return verifySSH(what, signature, payload, when, keys)
	}
	return verifyPGP(what, signature, payload, keys)
}

// trustedKeys are the keys of source.verify, read from their files, or
// the public half of status.signingKeyFile (statusKeys).
type trustedKeys struct {
	pgp openpgp.EntityList // every key of every armored block of every file
	ssh []allowedSigner
	// names words the refusals that depend on where the keys come from.
	names keyNames
}

// keyNames are the reasons given when a signature's kind has no trusted
// key, or its SSH key is not one of them.
type keyNames struct {
	noSSH, noPGP, otherSSH string
}

// sourceKeyNames words the refusals of source.verify.
var sourceKeyNames = keyNames{
	noSSH:    "it has an SSH signature and no source.verify.sshKeys are configured",
	noPGP:    "it has a PGP signature and no source.verify.pgpKeys are configured",
	otherSSH: "the SSH key is not one of source.verify.sshKeys",
}

// readTrustedKeys reads every key file of v, so that an unreadable file
// is an error whatever the revision's signature.
func readTrustedKeys(v *VerifyOptions) (trustedKeys, error) {
	keys := trustedKeys{names: sourceKeyNames}
	for _, f := range v.PGPKeyFiles {
		data, err := readConfigFile("source.verify.pgpKeys", f)
		if err != nil {
			return trustedKeys{}, err
		}
		ring, err := readArmoredKeys(data)
		if err != nil {
			return trustedKeys{}, fmt.Errorf("source.verify.pgpKeys: %s: %w", f, err)
		}
		keys.pgp = append(keys.pgp, ring...)
	}
	for _, f := range v.SSHKeyFiles {
		data, err := readConfigFile("source.verify.sshKeys", f)
		if err != nil {
			return trustedKeys{}, err
		}
		signers, err := parseAllowedSigners(f, data)
		if err != nil {
			return trustedKeys{}, err
		}
		keys.ssh = append(keys.ssh, signers...)
	}
	if len(v.SSHKeyFiles) > 0 && len(keys.ssh) == 0 {
		return trustedKeys{}, errors.New("source.verify.sshKeys holds no SSH public key: list the keys allowed to sign")
	}
	return keys, nil
}

// verifySSH checks an SSH signature (git's gpg.format=ssh) against the
// allowed signers of keys; see allowedSigner for what of that form is
// honoured.
func verifySSH(what, signature string, payload []byte, when time.Time, keys trustedKeys) error {
	signers := keys.ssh
	sig, err := sshsig.Unarmor([]byte(signature))
	if err != nil {
		return &VerificationError{Object: what, Reason: "its SSH signature does not parse: " + err.Error()}
	}
	signer := ssh.FingerprintSHA256(sig.PublicKey)
	if sig.Namespace != sshNamespace {
		return &VerificationError{Object: what, Signer: signer,
			Reason: fmt.Sprintf("its SSH signature is for namespace %q; git signs in namespace %q", sig.Namespace, sshNamespace)}
	}
	if len(signers) == 0 {
		return &VerificationError{Object: what, Signer: signer, Reason: keys.names.noSSH}
	}
	refusal := ""
	for _, a := range signers {
		if !bytes.Equal(a.key.Marshal(), sig.PublicKey.Marshal()) {
			continue
		}
		who := signer
		if a.principals != "" {
			who = a.principals + " " + signer
		}
		if refusal = a.permits(sig.Namespace, when); refusal != "" {
			signer = who
			continue
		}
		if err := sshsig.Verify(bytes.NewReader(payload), sig, a.key, sig.HashAlgorithm, sshNamespace); err != nil {
			return &VerificationError{Object: what, Signer: who, Reason: "the SSH signature does not match: " + err.Error()}
		}
		return nil
	}
	if refusal != "" {
		return &VerificationError{Object: what, Signer: signer, Reason: refusal}
	}
	return &VerificationError{Object: what, Signer: signer, Reason: keys.names.otherSSH}
}

func verifyPGP(what, signature string, payload []byte, keys trustedKeys) error {
	signer := pgpIssuer(signature)
	if len(keys.pgp) == 0 {
		return &VerificationError{Object: what, Signer: signer, Reason: keys.names.noPGP}
	}
	if err := verifyPGPPayload(keys.pgp, signature, payload); err != nil {
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

// verifyRevision checks the signature tgt needs under v: the commit's
// (mode head) or the annotated tag's (mode tag). In mode tag the tag
// object is the one the remote advertised (tgt.tag), whatever the cache's
// refs say, and it must peel to tgt.rev.Commit: fetchTag brings it first.
func (s *GitSource) verifyRevision(repo *git.Repository, tgt target) error {
	v := s.opts.Verify
	keys, err := readTrustedKeys(v)
	if err != nil {
		return err
	}
	rev := tgt.rev
	commit := plumbing.NewHash(rev.Commit)
	switch v.Mode {
	case "", "head":
		c, err := repo.CommitObject(commit)
		if err != nil {
			return err
		}
		if c.Hash != commit {
			// The signature checked must be the commit's checked out.
			return fmt.Errorf("commit %s was read as %s", commit, c.Hash)
		}
		payload, err := encodeWithoutSignature(c)
		if err != nil {
			return err
		}
		return verifyObject("commit "+rev.Short(), c.PGPSignature, payload, c.Committer.When, keys)
	case "tag":
		if s.opts.Ref.Tag == "" && s.opts.Ref.Semver == "" {
			return errors.New("source.verify.mode tag needs source.tag or source.semver")
		}
		tag, err := bindTag(repo, rev.Ref, tgt.tag, commit)
		if err != nil {
			return err
		}
		payload, err := encodeWithoutSignature(tag)
		if err != nil {
			return err
		}
		return verifyObject("tag "+rev.Ref, tag.PGPSignature, payload, tag.Tagger.When, keys)
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
// against a key ring.
func verifyPGPPayload(ring openpgp.EntityList, signature string, payload []byte) error {
	_, err := openpgp.CheckArmoredDetachedSignature(ring, bytes.NewReader(payload), strings.NewReader(signature), nil)
	return err
}

// pgpBlockStart opens an armored block.
const pgpBlockStart = "-----BEGIN PGP PUBLIC KEY BLOCK-----"

// readArmoredKeys reads every armored public key block of data, not only
// the first one (openpgp.ReadArmoredKeyRing stops after it): a file of
// several exported keys, or several files, trust every key they hold.
func readArmoredKeys(data []byte) (openpgp.EntityList, error) {
	text := string(data)
	var out openpgp.EntityList
	for n := 1; ; n++ {
		start := strings.Index(text, pgpBlockStart)
		if start < 0 {
			break
		}
		text = text[start:]
		next := strings.Index(text[len(pgpBlockStart):], pgpBlockStart)
		block := text
		if next >= 0 {
			block, text = text[:len(pgpBlockStart)+next], text[len(pgpBlockStart)+next:]
		} else {
			text = ""
		}
		ring, err := openpgp.ReadArmoredKeyRing(strings.NewReader(block))
		if err != nil {
			return nil, fmt.Errorf("armored block %d: %w", n, err)
		}
		out = append(out, ring...)
	}
	if len(out) == 0 {
		return nil, errors.New("holds no armored PGP public key (" + pgpBlockStart + ")")
	}
	return out, nil
}
