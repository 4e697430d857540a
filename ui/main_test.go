package ui

import (
	"os"
	"testing"

	"github.com/roleout/roleout/internal/testcluster"
)

// cluster is the package's local control plane, for the tests of
// ui.auth kubernetes (TokenReview, SubjectAccessReview); nil with -short.
var cluster *testcluster.Cluster

func TestMain(m *testing.M) {
	opts := testcluster.DefaultOptions()
	opts.Nodes = 0 // no pod ever runs: the API server and RBAC are enough
	os.Exit(testcluster.Main(m, opts, &cluster))
}
