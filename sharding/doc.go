// Package sharding spreads the apps of one agent configuration over the
// live replicas of the agent (sharding.mode: dynamic), with Kubernetes
// Leases in the agent's namespace and no consensus of its own:
//
//   - each replica holds a member Lease, roleout-member-<identity>,
//     renewed every retry period; the live members are those whose Lease
//     this replica has seen change within the lease duration;
//   - Assign gives each app to one live member by rendezvous hashing, so
//     a member joining or leaving moves only its share;
//   - a replica touches an app (its objects, its status) only while it
//     holds the app's Lease, roleout-app-<app>, claimed by a
//     compare-and-swap, and only within a session: while its member Lease
//     is renewed. It hands an app over between reconciles, and takes one
//     from another member only once that member's Lease has been seen
//     unchanged for a whole lease duration, longer than the renew
//     deadline after which the other has stopped.
//
// The agent asks Replica.Begin before it reconciles or previews an app;
// `roleout status` reads the owners with Owners.
//
// Leader election (sharding.mode leader with --leader-elect) is here too:
// Election runs client-go's elector on one Lease, calls the agent's loop
// while this replica leads, and says what /readyz reports of it.
package sharding
