// Command oracle computes, with aibrix v0.6.0's own code and the
// k8s.io/api v0.31.8 it links, what the StormService controller derives
// from StormServices as the API server stores them: the ControllerRevision
// name and each role's role-template-hash. It reads a JSON list of
// StormServices on stdin and writes a JSON list of results; roleout's
// tests compare their offline predictions with it.
//
// It follows pkg/controller/stormservice/revision.go (getPatch,
// newRevision) and pkg/controller/roleset/utils.go (renderStormServicePod)
// and skips the API server between them: the RoleSet is the JSON of the
// StormService's template spec decoded again, without its CRD's defaults.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	orchestrationv1alpha1 "github.com/vllm-project/aibrix/api/orchestration/v1alpha1"
	ctrlutil "github.com/vllm-project/aibrix/pkg/controller/util"
	"github.com/vllm-project/aibrix/pkg/controller/util/history"
	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type result struct {
	ControllerRevisionName string            `json:"controllerRevisionName"`
	RoleTemplateHashes     map[string]string `json:"roleTemplateHashes,omitempty"`
	Error                  string            `json:"error,omitempty"`
}

func main() {
	var in []json.RawMessage
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
	out := make([]result, len(in))
	for i, data := range in {
		r, err := compute(data)
		if err != nil {
			r.Error = err.Error()
		}
		out[i] = r
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

func compute(data []byte) (result, error) {
	ss := &orchestrationv1alpha1.StormService{}
	if err := json.Unmarshal(data, ss); err != nil {
		return result{}, err
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&ss)
	if err != nil {
		return result{}, err
	}
	template := raw["spec"].(map[string]any)["template"].(map[string]any)
	template["$patch"] = "replace"
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
	if err != nil {
		return result{}, err
	}
	var cc int32
	if ss.Status.CollisionCount != nil {
		cc = *ss.Status.CollisionCount
	}
	cr := &apps.ControllerRevision{Data: runtime.RawExtension{Raw: patch}}
	r := result{ControllerRevisionName: history.ControllerRevisionName(ss.Name, history.HashControllerRevision(cr, &cc))}
	if ss.Spec.Template.Spec == nil {
		return r, nil
	}
	sent, err := json.Marshal(ss.Spec.Template.Spec)
	if err != nil {
		return r, err
	}
	var spec orchestrationv1alpha1.RoleSetSpec
	if err := json.Unmarshal(sent, &spec); err != nil {
		return r, err
	}
	r.RoleTemplateHashes = map[string]string{}
	for i := range spec.Roles {
		r.RoleTemplateHashes[spec.Roles[i].Name] = ctrlutil.ComputeHash(&spec.Roles[i].Template, nil)
	}
	return r, nil
}
