package ui

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TokenCookie holds a token pasted on the login page.
const TokenCookie = "roleout_token"

// Reader is who reads the view.
type Reader struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Authorizer decides who reads the view and which apps they see: an app
// is shown to a reader it lets read in every namespace of the app's
// Scope (Scope.Checks), cluster-wide too when the app writes
// cluster-scoped objects.
type Authorizer interface {
	// Authenticate returns the reader of r, or an error (401).
	Authenticate(r *http.Request) (*Reader, error)
	// CanRead reports whether reader may read in namespace, or, for
	// ClusterWide, in every namespace and at cluster scope.
	CanRead(ctx context.Context, reader *Reader, namespace string) (bool, error)
}

// ClusterWide is the namespace CanRead is asked about for a cluster-wide
// right (a SubjectAccessReview with no namespace): what an app that
// writes cluster-scoped objects needs of its readers.
const ClusterWide = ""

// ErrNoToken is Authenticate's error for a request that carries none.
var ErrNoToken = errors.New("no bearer token: send Authorization: Bearer TOKEN (an auth proxy or kubectl proxy does), or paste one at /login")

// Open is the Authorizer of ui.auth none: everyone reads everything. It
// is only served on loopback listeners.
type Open struct{}

// Authenticate returns a reader with no name.
func (Open) Authenticate(*http.Request) (*Reader, error) { return &Reader{Name: "anonymous"}, nil }

// CanRead returns true.
func (Open) CanRead(context.Context, *Reader, string) (bool, error) { return true, nil }

// authCacheTTL is how long a TokenReview or SubjectAccessReview answer is
// reused: a revoked token or a removed RoleBinding counts within it.
const authCacheTTL = 30 * time.Second

// Kubernetes is the Authorizer of ui.auth kubernetes: the request's
// bearer token (or the TokenCookie) is checked with a TokenReview, and
// reading in a namespace is what a SubjectAccessReview says of get pods
// there (what the view ClusterRole grants where it is bound), reading
// cluster-wide what it says of get pods in every namespace (the view
// ClusterRole bound cluster-wide). Each answer is kept authCacheTTL by
// reader and namespace: an app of five namespaces costs five reviews,
// and the next app of the same namespaces none.
type Kubernetes struct {
	Client kubernetes.Interface
	// Audiences, when set, are the audiences the TokenReview asks for.
	Audiences []string

	now    func() time.Time
	mu     sync.Mutex
	tokens map[[32]byte]cachedReview
	access map[[32]byte]cachedAccess
}

type cachedReview struct {
	reader *Reader
	err    error
	at     time.Time
}

type cachedAccess struct {
	ok bool
	at time.Time
}

// NewKubernetes returns the Authorizer of ui.auth kubernetes on client.
func NewKubernetes(client kubernetes.Interface) *Kubernetes {
	return &Kubernetes{Client: client, now: time.Now, tokens: map[[32]byte]cachedReview{}, access: map[[32]byte]cachedAccess{}}
}

// bearer returns the token of r: its Authorization header when that is
// a bearer token, else its TokenCookie (as the login page's script wrote
// it, URI-encoded).
func bearer(r *http.Request) string {
	if scheme, t, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(t)
	}
	if c, err := r.Cookie(TokenCookie); err == nil {
		if t, err := url.QueryUnescape(c.Value); err == nil {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// Authenticate reviews the request's token.
func (k *Kubernetes) Authenticate(r *http.Request) (*Reader, error) {
	token := bearer(r)
	if token == "" {
		return nil, ErrNoToken
	}
	key := sha256.Sum256([]byte(token)) // the token itself is never kept
	k.mu.Lock()
	c, ok := k.tokens[key]
	k.mu.Unlock()
	if ok && k.now().Sub(c.at) < authCacheTTL {
		return c.reader, c.err
	}
	reader, err := k.review(r.Context(), token)
	var failed *reviewError
	if err != nil && !errors.As(err, &failed) {
		return nil, err // the API server's error: not cached
	}
	k.mu.Lock()
	now := k.now()
	if len(k.tokens) >= maxCached {
		evict(k.tokens, func(c cachedReview) bool { return now.Sub(c.at) >= authCacheTTL || c.err != nil })
	}
	if len(k.tokens) < maxCached { // else only when entries expire: a flood of bad tokens does not evict good ones
		k.tokens[key] = cachedReview{reader: reader, err: err, at: now}
	}
	k.mu.Unlock()
	return reader, err
}

// maxCached bounds each of the caches of answers.
const maxCached = 10000

// evict deletes the entries of m that drop says may go.
func evict[K comparable, V any](m map[K]V, drop func(V) bool) {
	for k, v := range m {
		if drop(v) {
			delete(m, k)
		}
	}
}

// reviewError is a token the API server did not authenticate.
type reviewError struct{ msg string }

func (e *reviewError) Error() string { return e.msg }

func (k *Kubernetes) review(ctx context.Context, token string) (*Reader, error) {
	tr, err := k.Client.AuthenticationV1().TokenReviews().Create(ctx, &authnv1.TokenReview{
		Spec: authnv1.TokenReviewSpec{Token: token, Audiences: k.Audiences},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, errors.New("the token could not be reviewed: " + err.Error())
	}
	if !tr.Status.Authenticated {
		msg := "the token was not authenticated by the API server"
		if tr.Status.Error != "" {
			msg += ": " + tr.Status.Error
		}
		return nil, &reviewError{msg}
	}
	u := tr.Status.User
	extra := map[string][]string{}
	for k, v := range u.Extra {
		extra[k] = v
	}
	return &Reader{Name: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra}, nil
}

// CanRead asks a SubjectAccessReview whether reader may get pods in
// namespace (in every namespace for ClusterWide).
func (k *Kubernetes) CanRead(ctx context.Context, reader *Reader, namespace string) (bool, error) {
	key := accessKey(reader, namespace)
	k.mu.Lock()
	c, ok := k.access[key]
	k.mu.Unlock()
	if ok && k.now().Sub(c.at) < authCacheTTL {
		return c.ok, nil
	}
	extra := map[string]authzv1.ExtraValue{}
	for k, v := range reader.Extra {
		extra[k] = v
	}
	sar, err := k.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authzv1.SubjectAccessReview{
		Spec: authzv1.SubjectAccessReviewSpec{
			User: reader.Name, UID: reader.UID, Groups: reader.Groups, Extra: extra,
			ResourceAttributes: &authzv1.ResourceAttributes{Namespace: namespace, Verb: "get", Resource: "pods"},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	k.mu.Lock()
	now := k.now()
	if len(k.access) >= maxCached {
		evict(k.access, func(c cachedAccess) bool { return now.Sub(c.at) >= authCacheTTL })
	}
	if len(k.access) < maxCached {
		k.access[key] = cachedAccess{ok: sar.Status.Allowed, at: now}
	}
	k.mu.Unlock()
	return sar.Status.Allowed, nil
}

// accessKey keys a SubjectAccessReview's answer: the whole reader (two
// tokens of one user with other scopes, in Extra, are two readers) and
// the namespace, hashed.
func accessKey(reader *Reader, namespace string) [32]byte {
	data, _ := json.Marshal(struct { // maps marshal with sorted keys
		R  *Reader
		NS string
	}{reader, namespace})
	return sha256.Sum256(data)
}
