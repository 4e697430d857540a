package status

// Read is what a read of the status branch found: the status store's
// answer (package statusstore), and what Parse reads records from.
type Read struct {
	// Files are the files read, by slash-separated path.
	Files map[string][]byte
	// Head is the branch's head commit; "" when the branch does not
	// exist.
	Head string
	// Commit is the commit Files come from: Head, or, when Head is
	// refused, the newest of its first-parent ancestors that the status
	// signing key signed; "" when there is none (Files is then empty).
	Commit string
	// Refused says why Head is not trusted. It is nil when Head is signed
	// by the status signing key, and always nil without one: then nothing
	// is verified and Head is read as it is.
	Refused *Refusal
	// Err, set by a read of several folders only, says why this folder
	// could not be read (a file over the read limits): the others still
	// are.
	Err error
}

// Refusal is why a commit of the status branch is not trusted.
type Refusal struct {
	Object string // "commit 1a2b3c4"
	Signer string // who signed it; "" when unsigned
	Reason string
}
