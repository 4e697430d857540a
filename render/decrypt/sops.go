package decrypt

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keyservice"
	"github.com/getsops/sops/v3/stores/dotenv"
	"github.com/getsops/sops/v3/stores/ini"
	sopsjson "github.com/getsops/sops/v3/stores/json"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// secret decrypts one Secret: whole, when it carries a sops field, else
// each data value that is a SOPS document.
func (k *Keys) secret(o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if _, ok := o.Object["sops"]; ok {
		js, err := o.MarshalJSON()
		if err != nil {
			return nil, err
		}
		plain, err := k.document(js, formats.Json, formats.Json)
		if err != nil {
			return nil, err
		}
		c := &unstructured.Unstructured{}
		if err := c.UnmarshalJSON(plain); err != nil {
			return nil, fmt.Errorf("the decrypted Secret is no object: %v", err)
		}
		return c, nil
	}
	c := o.DeepCopy()
	data, _, _ := unstructured.NestedStringMap(c.Object, "data")
	for key, v := range data {
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			continue
		}
		in, ok := marker(b)
		if !ok {
			continue
		}
		out := formats.FormatForPath(key)
		if strings.HasSuffix(key, ".dockerconfigjson") {
			out = formats.Json
		}
		plain, err := k.document(b, in, out)
		if err != nil {
			return nil, fmt.Errorf("data key %s: %w", key, err)
		}
		data[key] = base64.StdEncoding.EncodeToString(plain)
	}
	if err := unstructured.SetNestedStringMap(c.Object, data, "data"); err != nil {
		return nil, err
	}
	return c, nil
}

// markers say which of SOPS's formats a document is in, by the way each
// writes its MAC.
var markers = []struct {
	text   string
	format formats.Format
}{
	{`"mac": "ENC[`, formats.Json},
	{"mac: ENC[", formats.Yaml},
	{"sops_mac=ENC[", formats.Dotenv},
	{"[sops]", formats.Ini},
}

// marker returns the format of the SOPS document b; ok is false when b
// is none.
func marker(b []byte) (f formats.Format, ok bool) {
	s := string(b)
	for _, m := range markers {
		if strings.Contains(s, m.text) {
			return m.format, true
		}
	}
	return f, false
}

// document decrypts the SOPS document data, in format in, and returns
// its plaintext in format out (a binary document holds its data as it
// was).
func (k *Keys) document(data []byte, in, out formats.Format) (plain []byte, err error) {
	defer func() {
		if r := recover(); r != nil { // a SOPS store panics on some malformed input
			plain, err = nil, fmt.Errorf("malformed SOPS document")
		}
	}()
	cfg := config.NewStoresConfig()
	src := store(cfg, in)
	if in == formats.Json && out == formats.Binary {
		src = sopsjson.NewBinaryStore(&cfg.JSONBinary)
	}
	tree, err := src.LoadEncryptedFile(data)
	if err != nil {
		return nil, fmt.Errorf("not a SOPS document: %v", err)
	}
	svcs := []keyservice.KeyServiceClient{keyservice.NewCustomLocalClient(ageKeyService{ids: k.ids})}
	key, err := tree.Metadata.GetDataKeyWithKeyServices(svcs, sops.DefaultDecryptionOrder)
	if err != nil {
		return nil, fmt.Errorf("no age key of the app opens it (it is encrypted for %s)", recipients(tree))
	}
	if _, err := tree.Decrypt(key, aes.NewCipher()); err != nil {
		return nil, errors.New("its values do not decrypt with its data key (changed after encryption?)")
	}
	dst := store(cfg, out)
	if out == formats.Binary {
		dst = sopsjson.NewBinaryStore(&cfg.JSONBinary)
	}
	return dst.EmitPlainFile(tree.Branches)
}

// plainStore is what document needs of a SOPS store.
type plainStore interface {
	LoadEncryptedFile(in []byte) (sops.Tree, error)
	EmitPlainFile(in sops.TreeBranches) ([]byte, error)
}

// store is the SOPS store of format f.
func store(cfg *config.StoresConfig, f formats.Format) plainStore {
	switch f {
	case formats.Yaml:
		return sopsyaml.NewStore(&cfg.YAML)
	case formats.Dotenv:
		return dotenv.NewStore(&cfg.Dotenv)
	case formats.Ini:
		return ini.NewStore(&cfg.INI)
	case formats.Binary:
		return sopsjson.NewBinaryStore(&cfg.JSONBinary)
	default:
		return sopsjson.NewStore(&cfg.JSON)
	}
}

// recipients names the age recipients a document is encrypted for, for
// an error.
func recipients(tree sops.Tree) string {
	var out []string
	for _, group := range tree.Metadata.KeyGroups {
		for _, k := range group {
			if k.TypeToIdentifier() == sopsage.KeyTypeIdentifier {
				out = append(out, k.ToString())
			}
		}
	}
	if len(out) == 0 {
		return "no age recipient"
	}
	return strings.Join(out, ", ")
}

// ageKeyService is a SOPS key service that opens data keys with the
// app's age identities only: never another key type, never keys from
// the environment or the home directory (SOPS's own falls back to those
// when it holds no identity, so an empty set is refused here).
type ageKeyService struct {
	ids sopsage.ParsedIdentities
}

func (s ageKeyService) Decrypt(_ context.Context, req *keyservice.DecryptRequest) (*keyservice.DecryptResponse, error) {
	k, ok := req.GetKey().GetKeyType().(*keyservice.Key_AgeKey)
	if !ok {
		return nil, errors.New("only age keys are configured")
	}
	if len(s.ids) == 0 {
		return nil, errors.New("no age identity")
	}
	mk := sopsage.MasterKey{Recipient: k.AgeKey.GetRecipient(), EncryptedKey: string(req.GetCiphertext())}
	s.ids.ApplyToMasterKey(&mk)
	plain, err := mk.Decrypt()
	if err != nil {
		return nil, err
	}
	return &keyservice.DecryptResponse{Plaintext: plain}, nil
}

func (ageKeyService) Encrypt(context.Context, *keyservice.EncryptRequest) (*keyservice.EncryptResponse, error) {
	return nil, errors.New("roleout does not encrypt")
}

var _ keyservice.KeyServiceServer = ageKeyService{}
