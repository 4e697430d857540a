package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/config"
	"github.com/roleout/roleout/internal/object"
	"github.com/roleout/roleout/render/decrypt"
	"github.com/roleout/roleout/render/plan"
	"github.com/roleout/roleout/sources"
)

// maxKeyFileBytes bounds a key file the agent reads.
const maxKeyFileBytes = 64 << 10

// decrypt makes the app's SOPS-encrypted Secrets plannable
// (render/decrypt), after the render and before substitution, as Flux
// orders them: a trusted render decrypts them with the app's keys; any
// other (a pull-request preview) never decrypts and seals them instead.
// Either way the Secret carries its ciphertext's fingerprints
// (object.SopsAnnotation), so a preview records and hashes it as the
// rollout does; the annotation is roleout's, and content's own is
// dropped.
func (p planning) decrypt(ctx context.Context, req planRequest, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	out := slices.Clone(objs)
	var encrypted []int
	for i, o := range out {
		if _, ok := o.GetAnnotations()[object.SopsAnnotation]; ok {
			c := o.DeepCopy()
			ann := c.GetAnnotations()
			delete(ann, object.SopsAnnotation)
			c.SetAnnotations(ann)
			out[i] = c
		}
		if decrypt.Encrypted(out[i]) {
			encrypted = append(encrypted, i)
		}
	}
	if len(encrypted) == 0 {
		return out, nil
	}
	fps := make(map[int]map[string]string, len(encrypted))
	for _, i := range encrypted {
		fps[i] = decrypt.Fingerprints(out[i])
	}
	if req.snap.Trust == sources.Trusted {
		var keys *decrypt.Keys
		if d := req.app.Decryption; d != nil {
			var err error
			if keys, err = p.decryptionKeys(ctx, d); err != nil {
				return nil, err
			}
		}
		var err error
		if out, err = decrypt.Objects(out, keys); err != nil {
			return nil, err
		}
	} else {
		for _, i := range encrypted {
			if out[i].GetKind() != "Secret" || out[i].GetAPIVersion() != "v1" {
				return nil, fmt.Errorf("%s: carries SOPS metadata but is no Secret: roleout decrypts Secrets only", plan.Describe(out[i]))
			}
			out[i] = decrypt.Seal(out[i])
		}
	}
	for _, i := range encrypted {
		raw, err := json.Marshal(fps[i])
		if err != nil {
			return nil, err
		}
		ann := out[i].GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[object.SopsAnnotation] = string(raw)
		out[i].SetAnnotations(ann)
	}
	return out, nil
}

// decryptionKeys reads the age keys d names: its key files, and every
// *.agekey entry of its Secret in the agent's own cluster.
func (p planning) decryptionKeys(ctx context.Context, d *config.Decryption) (*decrypt.Keys, error) {
	sources := map[string][]byte{}
	for _, f := range d.KeyFiles {
		data, err := readBounded(f, maxKeyFileBytes)
		if err != nil {
			return nil, fmt.Errorf("decryption.keyFiles: %w", err)
		}
		sources[f] = data
	}
	if r := d.KeySecret; r != nil {
		ns := r.Namespace
		if ns == "" {
			ns = p.cfg.Status.ClusterRevisions.AgentNamespace()
		}
		where := "Secret " + ns + "/" + r.Name
		if p.own == nil {
			return nil, fmt.Errorf("decryption.keySecret %s: this command reaches no cluster to read it (roleout diff and run do; or give keyFiles)", where)
		}
		s, err := p.own.Live(ctx, object.Ref{APIVersion: "v1", Kind: "Secret", Namespace: ns, Name: r.Name})
		if err != nil {
			return nil, fmt.Errorf("decryption.keySecret: read %s: %w", where, err)
		}
		if s == nil {
			return nil, fmt.Errorf("decryption.keySecret: %s not found: create it with each age key in an entry named *.agekey", where)
		}
		data, _, _ := unstructured.NestedStringMap(s.Object, "data")
		for k, v := range data {
			if !strings.HasSuffix(k, ".agekey") {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				return nil, fmt.Errorf("decryption.keySecret: %s entry %s is not base64", where, k)
			}
			sources[where+" "+k] = b
		}
	}
	keys, err := decrypt.ParseKeys(sources)
	if err != nil {
		return nil, fmt.Errorf("decryption: %w", err)
	}
	return keys, nil
}

// readBounded reads a file of at most max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}
