package apply

import (
	"context"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/roleout/roleout/internal/object"
)

// versionsTTL is how long object.ClusterVersions keeps what it read: versions
// change with an upgrade, not between two rollouts of one poll.
const versionsTTL = 5 * time.Minute

// versionCache holds the versions one cluster runs, read at most once
// per versionsTTL.
type versionCache struct {
	mu   sync.Mutex
	at   time.Time
	read object.ClusterVersions
}

// object.ClusterVersions returns the Kubernetes version of the cluster's API
// server and the versions of controllers the cluster runs, read at most
// once per versionsTTL. What cannot be read is unknown (""): it is never
// an error, nor logged.
func (a *Applier) ClusterVersions(ctx context.Context, controllers []object.ControllerDeployment) object.ClusterVersions {
	c := a.versions
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || time.Since(c.at) > versionsTTL {
		c.read, c.at = readClusterVersions(ctx, a.client, a.disc, controllers), time.Now()
	}
	return c.read
}

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// readClusterVersions reads the server's version through disc and each
// controller's version from the image tag of its Deployment, with one
// get each: a Deployment that is missing, forbidden or unreadable, or
// whose image has no tag, leaves the version unknown.
func readClusterVersions(ctx context.Context, client dynamic.Interface, disc discovery.ServerVersionInterface, controllers []object.ControllerDeployment) object.ClusterVersions {
	var out object.ClusterVersions
	if info, err := disc.ServerVersion(); err == nil {
		out.Kubernetes = info.GitVersion
	}
	for _, c := range controllers {
		d, err := client.Resource(deployments).Namespace(c.Namespace).Get(ctx, c.Deployment, metav1.GetOptions{})
		if err != nil {
			continue
		}
		if tag := imageTag(controllerImage(d, c.Container)); tag != "" {
			if out.Controllers == nil {
				out.Controllers = map[string]string{}
			}
			out.Controllers[c.Name] = tag
		}
	}
	return out
}

// controllerImage is the image of Deployment d's container named name,
// or of its only container; "" when there is neither.
func controllerImage(d *unstructured.Unstructured, name string) string {
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var only string
	for _, c := range containers {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		image, _ := m["image"].(string)
		if n, _ := m["name"].(string); n == name {
			return image
		}
		only = image
	}
	if len(containers) == 1 {
		return only
	}
	return ""
}

// imageTag is the tag of an image reference
// (registry.k8s.io/lws/lws:v0.9.0@sha256:… → v0.9.0), "" when it has
// none.
func imageTag(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return "" // no tag, or the colon of a registry's port
	}
	return image[i+1:]
}
