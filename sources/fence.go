package sources

import (
	"net/http"

	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/roleout/roleout/internal/fence"
)

// Every git request over HTTP checks, as it leaves, the claims its
// context holds (internal/fence): a status push made for an app whose
// claim ended in a pause is refused at the wire, not only before the push
// begins. go-git chooses its transport by scheme from one table, so the
// process's HTTP transports are go-git's default with the check in front.
func init() {
	c := githttp.NewClient(&http.Client{Transport: fence.Transport(http.DefaultTransport)})
	client.InstallProtocol("http", c)
	client.InstallProtocol("https", c)
}
