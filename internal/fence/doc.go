// Package fence keeps a replica's writes inside its claim on an app. A
// claim (sharding.Replica.Begin puts one in the context of each reconcile)
// ends at a deadline read from the monotonic clock: the last renewal of
// the replica's member Lease, plus the lease duration, less a retry
// period, which is before any other replica may take the app. Every write
// of the reconcile checks it as it leaves the process: the clients of the
// clusters and of git through a Guard, whose Transport checks each request
// as it enters the client (rest.Config.Wrap) and whose connections (Dial)
// check the claims of every request in flight before each write, so that
// a request held in the client by a pause is refused too; the status
// branch's push through Check as well. A process paused past its lease
// (SIGSTOP, a long GC pause, a frozen VM) therefore writes nothing when it
// resumes, whatever its goroutines were doing: the work that was under
// way fails with an ExpiredError instead.
//
// A context with no claim (a replica without sharding, the Lease
// requests themselves, one-shot commands) is never refused.
package fence
