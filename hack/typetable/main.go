// Command typetable writes the Go type table render/predict's StormService
// prediction reads: every type reachable from aibrix's RoleSetTemplateSpec
// as the aibrix v0.6.0 controller is built (k8s.io/api and apimachinery
// v0.31.8), with each struct's fields in declaration order, their Go types,
// their JSON names and omitempty, and which types marshal themselves.
//
// The aibrix controller hashes spew dumps of those Go structs and
// converts them to JSON with that version's converter; roleout links
// Kubernetes 1.37's types, which have fields v0.31.8 does not. The table
// lets roleout reproduce the v0.31.8 bytes. It is read from the Go
// sources in the module cache, resolved through hack/tools/aibrix's
// module graph:
//
//	go run ./hack/typetable -o render/predict/aibrix_types.json
//	go run ./hack/typetable -check render/predict/aibrix_types.json
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	tools := flag.String("tools", "hack/tools/aibrix", "module whose build list resolves the packages")
	root := flag.String("root", "github.com/vllm-project/aibrix/api/orchestration/v1alpha1.RoleSetTemplateSpec", "type to start from, as import/path.Name")
	out := flag.String("o", "", "write the table to this file")
	check := flag.String("check", "", "compare the table with this file and fail when it differs")
	flag.Parse()
	if err := run(*tools, *root, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "typetable:", err)
		os.Exit(1)
	}
}

func run(tools, root, out, check string) error {
	dir, err := filepath.Abs(tools)
	if err != nil {
		return err
	}
	t, err := Generate(dir, root)
	if err != nil {
		return err
	}
	data, err := t.Marshal()
	if err != nil {
		return err
	}
	if check != "" {
		have, err := os.ReadFile(check)
		if err != nil {
			return err
		}
		if !bytes.Equal(have, data) {
			return fmt.Errorf("%s is not what the module sources give: run go run ./hack/typetable -o %s", check, check)
		}
		return nil
	}
	if out == "" {
		_, err = os.Stdout.Write(data)
		return err
	}
	return os.WriteFile(out, data, 0o644)
}
