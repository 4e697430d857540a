package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/downloader"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/roleout/roleout/internal/secrets"
)

// pull serves `helm pull --untar --untardir DIR [--repo URL] CHART
// [--version V] [--devel]` (kustomize's pullCommand) as helm's own
// action.Pull does, with every fetch through the render's fetch gate and
// no credentials, but untars into the pulled charts (helmRequest.Pulled)
// rather than into the repository. A chart an earlier helmCharts entry of
// the same render pulled to the same place is not pulled again: kustomize
// would have found it in place.
func (h *helmRun) pull(ctx context.Context, args []string) error {
	set := pflag.NewFlagSet("pull", pflag.ContinueOnError)
	set.SetOutput(io.Discard)
	untar := set.Bool("untar", false, "")
	untarDir := set.String("untardir", ".", "")
	repoURL := set.String("repo", "", "")
	version := set.String("version", "", "")
	devel := set.Bool("devel", false, "")
	if err := set.Parse(args); err != nil {
		return fmt.Errorf("helm pull: %w", err)
	}
	if set.NArg() != 1 || !*untar || !filepath.IsAbs(*untarDir) {
		return fmt.Errorf("helm pull %s: the render sandbox pulls one chart with --untar into an absolute --untardir", strings.Join(args, " "))
	}
	ref := set.Arg(0)
	if *version == "" && *devel {
		*version = ">0.0.0-0"
	}
	dest, err := h.pulledPath(*untarDir)
	if err != nil {
		return fmt.Errorf("helm pull %s: %w", ref, err)
	}
	_, name := filepath.Split(ref)
	if _, err := os.Stat(filepath.Join(dest, name)); err == nil {
		return nil
	}
	saved, err := h.download(ctx, ref, *repoURL, *version)
	if err != nil {
		var refused *errFetchRefused
		if errors.As(err, &refused) {
			err = refused
		}
		return fmt.Errorf("helm pull %s: %w", ref, err)
	}
	if err := os.MkdirAll(filepath.Join(dest, name), 0o755); err != nil {
		return err
	}
	if err := chartutil.ExpandFile(dest, saved); err != nil {
		return fmt.Errorf("helm pull %s: %w", ref, err)
	}
	return nil
}

// download fetches chart ref (a name in the chart repository at repoURL,
// or an oci:// reference) at version (a version or a range, "" for the
// latest) into a new temporary directory and returns the archive's path.
// The directory is under the render's TMPDIR (sandbox.go), which goes
// with the render.
func (h *helmRun) download(ctx context.Context, ref, repoURL, version string) (string, error) {
	tmp, err := os.MkdirTemp("", "helm-")
	if err != nil {
		return "", err
	}
	client := &http.Client{Transport: h.gate}
	getters := getter.Providers{
		{Schemes: []string{"http", "https"}, New: func(...getter.Option) (getter.Getter, error) {
			return &gatedGetter{ctx: ctx, client: client}, nil
		}},
		{Schemes: []string{registry.OCIScheme}, New: getter.NewOCIGetter},
	}
	// Anonymous: no credential store is read, no credential helper run.
	rc, err := registry.NewClient(registry.ClientOptHTTPClient(client),
		registry.ClientOptAuthorizer(auth.Client{Client: client, Header: http.Header{"User-Agent": {helmUserAgent()}}}),
		registry.ClientOptCredentialsFile(filepath.Join(tmp, "registry.json")))
	if err != nil {
		return "", err
	}
	dl := downloader.ChartDownloader{
		Out:              io.Discard,
		Verify:           downloader.VerifyNever,
		Getters:          getters,
		RegistryClient:   rc,
		RepositoryConfig: filepath.Join(tmp, "repositories.yaml"),
		RepositoryCache:  filepath.Join(tmp, "cache"),
	}
	source := ref
	switch {
	case registry.IsOCI(ref):
		dl.Options = append(dl.Options, getter.WithRegistryClient(rc))
	case repoURL != "":
		if source, err = repo.FindChartInRepoURL(repoURL, ref, version, "", "", "", getters); err != nil {
			return "", err
		}
	}
	saved, _, err := dl.DownloadTo(source, version, tmp)
	return saved, err
}

func helmUserAgent() string { return "Helm/" + strings.TrimPrefix(helmVersion(), "v") }

// gatedGetter is Helm's getter for http and https chart repositories,
// through the render's fetch gate: a host not in render.remoteHosts is
// refused before any connection, an allowed fetch is bounded in time and
// bytes. It sends no credentials.
type gatedGetter struct {
	ctx    context.Context // the helm command's: Helm's getters take none
	client *http.Client
}

// Get fetches url, as Helm's HTTP getter does: an answer other than 200
// is an error.
func (g *gatedGetter) Get(url string, _ ...getter.Option) (*bytes.Buffer, error) {
	req, err := http.NewRequestWithContext(g.ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", helmUserAgent())
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("failed to fetch %s : %s", secrets.RedactURL(url), resp.Status)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		return nil, err
	}
	return &buf, nil
}
