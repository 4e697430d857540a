package sharding

import (
	"slices"

	coordv1 "k8s.io/api/coordination/v1"
)

// Replicas poll the source each on its own schedule, and a webhook
// reaches one of them (the one the Service picked). So that every
// replica rolls out a new commit as soon as the first one finds it, a
// replica writes the revision it fetched in its member Lease
// (AnnotationSourceHead, at once, not at the next renewal), and a
// replica that lists a live member's Lease naming a revision it has
// neither fetched nor heard of is told (Options.Heard) and polls. The
// revision is a hint, never what is rolled out: the poll fetches the
// source itself, and a Lease that names a revision the source does not
// have costs one poll, once per value.

// maxKnown bounds the revisions a replica remembers having fetched or
// heard of; past it, it forgets them all but its own.
const maxKnown = 64

// Announce records head as the source revision this replica fetched
// and, when it is new, writes it in the member Lease now.
func (r *Replica) Announce(head string) {
	r.mu.Lock()
	changed := head != "" && head != r.head
	if changed {
		r.head = head
		r.rememberLocked(head)
	}
	r.mu.Unlock()
	if changed {
		select {
		case r.renewNow <- struct{}{}:
		default:
		}
	}
}

// rememberLocked adds head to the revisions known.
func (r *Replica) rememberLocked(head string) {
	if len(r.known) >= maxKnown {
		clear(r.known)
		r.known[r.head] = true
	}
	r.known[head] = true
}

// hear tells Options.Heard of each revision the live members' Leases
// among items name that this replica does not know, once each.
func (r *Replica) hear(items []coordv1.Lease) {
	if r.o.Heard == nil {
		return
	}
	own := MemberLeaseName(r.o.Group, r.o.Identity)
	var heard []string
	r.mu.Lock()
	if r.head == "" {
		// Not polled yet: its first poll fetches the newest anyway.
		r.mu.Unlock()
		return
	}
	for i := range items {
		l := &items[i]
		head := l.Annotations[AnnotationSourceHead]
		if l.Labels[LabelKind] != kindMember || l.Name == own || head == "" || r.known[head] || !slices.Contains(r.live, holder(l)) {
			continue
		}
		r.rememberLocked(head)
		heard = append(heard, head)
	}
	r.mu.Unlock()
	for _, head := range heard {
		r.o.Heard(head)
	}
}
