package sources

import (
	"net/http"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/roleout/roleout/internal/fence"
)

// Every git request over HTTP checks the claims its context holds
// (internal/fence) as it enters the client, and its connection checks the
// claims of the requests in flight before each write: a status push made
// for an app whose claim ended in a pause is refused at the wire, not
// only before the push begins. go-git chooses its transport by scheme
// from one table, so the process's HTTP transports are a copy of Go's
// default, fenced by one Guard.
func init() {
	g := fence.NewGuard()
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = g.Dial(t.DialContext)
	c := githttp.NewClient(&http.Client{Transport: g.Transport(t)})
	client.InstallProtocol("http", c)
	client.InstallProtocol("https", c)
}
