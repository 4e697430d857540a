package testobjects

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Parse decodes the objects of YAML (or JSON) documents; each of docs
// may hold several, separated by "---". Empty documents are skipped.
func Parse(t testing.TB, docs ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, d := range docs {
		objs, err := decode([]byte(d))
		if err != nil {
			t.Fatalf("parse objects: %v\n%s", err, d)
		}
		out = append(out, objs...)
	}
	return out
}

// One decodes the one object of doc.
func One(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	objs := Parse(t, doc)
	if len(objs) != 1 {
		t.Fatalf("want one object, got %d:\n%s", len(objs), doc)
	}
	return objs[0]
}

// Read decodes the objects of the YAML files, in order; a file with no
// object fails the test.
func Read(t testing.TB, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := decode(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(objs) == 0 {
			t.Fatalf("no objects in %s", f)
		}
		out = append(out, objs...)
	}
	return out
}

// Glob decodes the objects of the YAML files pattern matches, sorted by
// name; none fails the test with hint.
func Glob(t testing.TB, pattern, hint string) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files match %s (%s): %v", pattern, hint, err)
	}
	return Read(t, files...)
}

// ByName indexes objs by name; a later object of the same name wins.
func ByName(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	out := make(map[string]*unstructured.Unstructured, len(objs))
	for _, o := range objs {
		out[o.GetName()] = o
	}
	return out
}

// decode reads every object of a YAML or JSON stream.
func decode(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// Module is a Go module as the go command selects it in a directory's
// module.
type Module struct {
	Path, Version string
	// Dir is where the module cache holds its files; empty when it is
	// not downloaded.
	Dir string
}

// GoModule returns module path as the module of dir (a directory of the
// test's package when ".") selects it, with `go list -m -json`.
func GoModule(t testing.TB, dir, path string) Module {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-json", path)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m %s (in %s): %v", path, dir, err)
	}
	var m Module
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	m.Version = strings.TrimSpace(m.Version)
	return m
}
