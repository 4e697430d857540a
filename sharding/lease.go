package sharding

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Leases' labels and annotations. Every Lease of the agent carries
// LabelGroup (so one list reads them all) and LabelKind (member or app).
const (
	LabelGroup = "roleout.dev/lease-group"
	LabelKind  = "roleout.dev/lease-kind"
	// AnnotationApp names the app of an app Lease (its name may be
	// shortened or hashed to fit a Lease name).
	AnnotationApp = "roleout.dev/app"
	// AnnotationIdentity names the replica of a member Lease.
	AnnotationIdentity = "roleout.dev/identity"
	// AnnotationIncarnation is the member Lease's random token, new with
	// every process: two processes started with one identity see each
	// other by it, and the second waits until the first's Lease expires.
	AnnotationIncarnation = "roleout.dev/incarnation"
	// AnnotationSourceHead is the source revision a member last fetched
	// (Replica.Announce): the others poll when it names one they have
	// not seen.
	AnnotationSourceHead = "roleout.dev/source-head"

	kindMember = "member"
	kindApp    = "app"
	// DefaultGroup is the group of replicas when sharding.name is unset:
	// the value of LabelGroup and the prefix of every Lease name.
	DefaultGroup = "roleout"
)

// MemberLeaseName is the name of the member Lease of identity in group.
func MemberLeaseName(group, identity string) string { return leaseName(group, kindMember, identity) }

// AppLeaseName is the name of the Lease of app in group.
func AppLeaseName(group, app string) string { return leaseName(group, kindApp, app) }

// leaseName is group-kind-name with name made a DNS subdomain: lower
// case, characters outside [a-z0-9.-] as '-', and, when that changed or
// shortened the name, 12 hex digits of its SHA-256 added, so that two
// names never share a Lease.
func leaseName(group, kind, name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	clean := strings.Trim(b.String(), "-.")
	const maxLen = 200
	if clean == name && len(clean) <= maxLen {
		return group + "-" + kind + "-" + clean
	}
	sum := sha256.Sum256([]byte(name))
	if len(clean) > maxLen {
		clean = strings.Trim(clean[:maxLen], "-.")
	}
	if clean == "" {
		return group + "-" + kind + "-" + hex.EncodeToString(sum[:6])
	}
	return group + "-" + kind + "-" + clean + "-" + hex.EncodeToString(sum[:6])
}

// holder returns the Lease's holder, "" for none.
func holder(l *coordv1.Lease) string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// newLease returns a Lease of kind named name, labelled for group, held
// by who (none when "") from now.
func newLease(group, kind, name string, annotations map[string]string, who string, d time.Duration, now time.Time) *coordv1.Lease {
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: annotations,
		Labels: map[string]string{LabelGroup: group, LabelKind: kind},
	}}
	hold(l, who, d, now)
	return l
}

// hold sets l's holder to who (none when "") from now, for d.
func hold(l *coordv1.Lease, who string, d time.Duration, now time.Time) {
	t := metav1.NewMicroTime(now)
	secs := int32(d / time.Second)
	l.Spec.LeaseDurationSeconds = &secs
	l.Spec.RenewTime = &t
	if who == "" {
		l.Spec.HolderIdentity = nil
		return
	}
	if holder(l) != who {
		l.Spec.AcquireTime = &t
		n := int32(0)
		if l.Spec.LeaseTransitions != nil {
			n = *l.Spec.LeaseTransitions + 1
		}
		l.Spec.LeaseTransitions = &n
	}
	l.Spec.HolderIdentity = &who
}
