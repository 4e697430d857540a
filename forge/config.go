package forge

import (
	"fmt"

	"github.com/sirupsen/logrus"

	"github.com/roleout/roleout/config"
)

// New returns the API of the forge f names, for a source at sourceURL.
func New(f *config.Forge, sourceURL string) (Provider, error) {
	token := Token{File: f.TokenFile, Env: f.TokenEnv}
	repo := f.RepositoryOr(sourceURL)
	switch f.Type { // each with newClient's default HTTP client
	case config.ForgeGitHub:
		return NewGitHub(f.APIURL(), repo, token, f.CommentLimit, nil)
	case config.ForgeGitLab:
		return NewGitLab(f.APIURL(), repo, token, f.CommentLimit, nil)
	case config.ForgeGitea:
		return NewGitea(f.APIURL(), repo, token, f.CommentLimit, nil)
	}
	return nil, fmt.Errorf("forge.type %q is not github, gitlab or gitea", f.Type)
}

// NewPosterFor returns the poster to the forge cfg names, its statuses'
// contexts naming the apps' own clusters; previews reads pull requests'
// previews. Run makes the posts.
func NewPosterFor(cfg *config.Config, previews PreviewReader, log logrus.FieldLogger) (*Poster, error) {
	p, err := New(cfg.Forge, cfg.Source.URL)
	if err != nil {
		return nil, err
	}
	clusters := map[string]string{}
	for _, app := range cfg.Apps {
		clusters[app.Name] = app.ClusterName()
	}
	po := NewPoster(p, previews, log)
	po.Cluster = func(app string) string { return clusters[app] }
	return po, nil
}
