package sharding

import (
	"context"
	"slices"
	"time"

	"github.com/sirupsen/logrus"
	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// Ownership is who owns an app: a live member, or none since a time.
type Ownership struct {
	// Owner is the live member holding the app's Lease; "" for none.
	Owner string
	// UnownedSince is, for an app without an owner, when its last owner
	// was last seen renewing its member Lease, else when the app was
	// first seen without one.
	UnownedSince time.Time
}

// View is what a replica knows of the sharding.
type View struct {
	// Identity is the replica's; Member whether it holds its member
	// Lease (a session runs).
	Identity string
	Member   bool
	// Members are the live members, sorted; Held the apps this replica
	// holds, sorted.
	Members, Held []string
	// Owners holds every configured app's ownership.
	Owners map[string]Ownership
}

// View returns what the replica knows now.
func (r *Replica) View() View {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := View{Identity: r.o.Identity, Member: r.session != nil, Members: slices.Clone(r.live), Owners: map[string]Ownership{}}
	for app := range r.held {
		v.Held = append(v.Held, app)
	}
	slices.Sort(v.Held)
	for _, app := range r.apps {
		v.Owners[app] = Ownership{Owner: r.owners[app], UnownedSince: r.unowned[app]}
	}
	return v
}

// ownersLocked records each app's owner from its Lease (by app) and the
// live members, and logs an app that stays without one for a lease
// duration, and when it has one again.
func (r *Replica) ownersLocked(byApp map[string]*coordv1.Lease) {
	now := time.Now()
	for _, app := range r.apps {
		h := holder(byApp[app])
		owner := ""
		switch {
		case r.held[app] != nil:
			owner = r.o.Identity
		case h != r.o.Identity && slices.Contains(r.live, h):
			owner = h
		}
		r.owners[app] = owner
		if owner != "" {
			if r.warned[app] {
				r.o.Log.WithFields(logrus.Fields{"app": app, "owner": owner}).Info("sharding: app owned again")
			}
			delete(r.unowned, app)
			delete(r.warned, app)
			continue
		}
		since, ok := r.unowned[app]
		if !ok {
			since = now
			if s, seen := r.seen[MemberLeaseName(r.o.Group, h)]; h != "" && seen {
				since = s.at
			}
			r.unowned[app] = since
		}
		if !r.warned[app] && now.Sub(since) >= r.o.LeaseDuration {
			r.warned[app] = true
			r.o.Log.WithFields(logrus.Fields{"app": app, "since": since.UTC().Format(time.RFC3339), "last owner": h}).
				Warn("sharding: app has no owner: no live replica holds its Lease")
		}
	}
	for app := range r.owners {
		if !slices.Contains(r.apps, app) {
			delete(r.owners, app)
			delete(r.unowned, app)
			delete(r.warned, app)
		}
	}
}

// Owners reads the Leases of group once, as `roleout status` does, and returns
// each app's ownership: the holder of its Lease when that member's
// Lease was renewed within its duration by the reader's clock at now;
// none otherwise, since that member's last renewal (or since the app's
// Lease was last written, or the zero time when it has none).
func Owners(ctx context.Context, leases coordclient.LeaseInterface, group string, apps []string, now time.Time) (map[string]Ownership, error) {
	if group == "" {
		group = DefaultGroup
	}
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: LabelGroup + "=" + group})
	if err != nil {
		return nil, err
	}
	renewed := map[string]time.Time{} // by member identity: its last renewal
	live := map[string]bool{}
	byApp := map[string]*coordv1.Lease{}
	for i := range list.Items {
		l := &list.Items[i]
		switch l.Labels[LabelKind] {
		case kindApp:
			byApp[l.Annotations[AnnotationApp]] = l
		case kindMember:
			h := holder(l)
			if h == "" || l.Spec.RenewTime == nil {
				continue
			}
			renewed[h] = l.Spec.RenewTime.Time
			if d := l.Spec.LeaseDurationSeconds; d != nil && now.Before(l.Spec.RenewTime.Add(time.Duration(*d)*time.Second)) {
				live[h] = true
			}
		}
	}
	out := make(map[string]Ownership, len(apps))
	for _, app := range apps {
		l := byApp[app]
		h := holder(l)
		switch {
		case live[h]:
			out[app] = Ownership{Owner: h}
		case !renewed[h].IsZero():
			out[app] = Ownership{UnownedSince: renewed[h]}
		case l != nil && l.Spec.RenewTime != nil:
			out[app] = Ownership{UnownedSince: l.Spec.RenewTime.Time}
		default:
			out[app] = Ownership{}
		}
	}
	return out, nil
}
