package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/roleout/roleout/internal/testobjects"
	"github.com/roleout/roleout/render/schema"
)

const (
	lwsCRD   = "leaderworkersets.leaderworkerset.x-k8s.io"
	stormCRD = "stormservices.orchestration.aibrix.ai"
)

// deploymentDoc is a valid Deployment web whose container is container and
// whose spec ends with more, both YAML flow or block text.
func deploymentDoc(container, more string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: llm, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [` + container + `]
` + more
}

// lws is a LeaderWorkerSet with spec.
func lws(spec string) string {
	return "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: decode, namespace: llm}\nspec: " + spec + "\n"
}

// storm is a StormService with spec.
func storm(spec string) string {
	return "apiVersion: orchestration.aibrix.ai/v1alpha1\nkind: StormService\nmetadata: {name: pd, namespace: llm}\nspec: " + spec + "\n"
}

const (
	webContainer = `{name: web, image: "web:1", resources: {requests: {cpu: 100m, memory: 1Gi}}}`
	worker       = `{workerTemplate: {spec: {containers: [{name: w, image: "engine:1"}]}}}`
	stormTmpl    = `{spec: {roles: [{name: prefill, replicas: 1, template: {spec: {containers: [{name: e, image: "vllm:1"}]}}}]}}`
)

// builtinErrs and lwsErrs are Validations of a Kubernetes kind and of a
// LeaderWorkerSet or StormService against its built-in CRD.
func builtinErrs(errs ...FieldError) Validation {
	return Validation{Schema: schema.SchemaBuiltin, Errors: errs}
}

func crdErrs(crd string, errs ...FieldError) Validation {
	return Validation{Schema: schema.SchemaBuiltin, CRD: crd, Errors: errs}
}

// TestValidate is the table of what the API server refuses, for each
// kind of fault: a value of the wrong type, null where an object or a
// value is required, an unknown field, a required field missing; for
// Kubernetes kinds, and for LeaderWorkerSets and StormServices against
// the CRDs built into roleout. A valid object of each kind has no error.
func TestValidate(t *testing.T) {
	unknownCRD := "unknown field: not declared in the CRD's schema"
	unknownK8s := "unknown field: Kubernetes v1.37.2 has no such field"
	noMatch := "`selector` does not match template `labels`"
	cases := []struct {
		name string
		doc  string
		want Validation
	}{
		{"Deployment: valid", deploymentDoc(webContainer, ""), builtinErrs()},
		{"Deployment: privileged, as kubeadm, kind and managed clusters allow", deploymentDoc(`{name: web, image: "web:1", securityContext: {privileged: true}}`, "      hostNetwork: true\n"),
			builtinErrs()},
		{"Deployment: wrong type", deploymentDoc(webContainer, "  minReadySeconds: soon\n"),
			builtinErrs(FieldError{"spec.minReadySeconds", "expected numeric (int or float), got string"})},
		{"Deployment: a list where an object goes", deploymentDoc(webContainer, "  strategy: [RollingUpdate]\n"),
			builtinErrs(FieldError{"spec.strategy", "expected map, got [RollingUpdate]"})},
		{"Deployment: spec null", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: null\n",
			builtinErrs(FieldError{"spec.selector", "Required value"},
				FieldError{"spec.template.metadata.labels", "Invalid value: null: " + noMatch},
				FieldError{"spec.template.spec.containers", "Required value"})},
		{"Deployment: null where a string is required", deploymentDoc(`{name: web, image: null}`, ""),
			builtinErrs(FieldError{"spec.template.spec.containers[0].image", "Required value"})},
		{"Deployment: unknown field", deploymentDoc(`{name: web, image: "web:1", imagePullPolicyy: Always}`, ""),
			builtinErrs(FieldError{`spec.template.spec.containers[name="web"].imagePullPolicyy`, unknownK8s})},
		{"Deployment: missing required field", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "web:1"}]}
`, builtinErrs(FieldError{"spec.selector", "Required value"},
			FieldError{"spec.template.metadata.labels", `Invalid value: {"app":"web"}: ` + noMatch})},
		{"Deployment: two env entries with one name", deploymentDoc(`{name: web, image: "web:1", env: [{name: A, value: "1"}, {name: A, value: "2"}]}`, ""),
			builtinErrs(FieldError{`spec.template.spec.containers[name="web"].env`, `duplicate entries for key [name="A"]`})},
		{"Deployment: a version Kubernetes v1.37.2 no longer serves", strings.Replace(deploymentDoc(webContainer, ""), "apps/v1", "apps/v1beta2", 1),
			builtinErrs(FieldError{"apiVersion", `Unsupported value: "apps/v1beta2": Kubernetes v1.37.2 serves Deployment as apps/v1`})},
		{"StatefulSet: valid", `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "postgres:16"}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`, builtinErrs()},
		{"StatefulSet: missing required field and wrong type", `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "postgres:16"}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce]}
`, builtinErrs(FieldError{"spec.volumeClaimTemplates[0].spec.resources[storage]", "Required value"})},
		{"StatefulSet: wrong type", `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: true
  selector: {matchLabels: {app: db}}
  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: db, image: "postgres:16"}]}}
`, builtinErrs(FieldError{"spec.replicas", "expected numeric (int or float), got bool"})},
		{"ConfigMap: a key the API server refuses", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a/b: x}\n",
			builtinErrs(FieldError{"data[a/b]", `Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`})},
		{"Service: unknown field", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80, targetPortt: 8080}]}\n",
			builtinErrs(FieldError{`spec.ports[port=80,protocol="TCP"].targetPortt`, unknownK8s})},
		{"Service: metadata", "apiVersion: v1\nkind: Service\nmetadata: {name: s, labels: {app: web/1}}\nspec: {ports: [{port: 80}]}\n",
			builtinErrs(FieldError{"metadata.labels", `Invalid value: "web/1": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`})},
		{"a kind roleout has no schema for", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: null\n", Validation{}},

		{"LeaderWorkerSet: valid", lws(`{replicas: 2, leaderWorkerTemplate: ` + worker + `}`), crdErrs(lwsCRD)},
		{"LeaderWorkerSet: wrong type", lws(`{replicas: two, leaderWorkerTemplate: ` + worker + `}`),
			crdErrs(lwsCRD, FieldError{"spec.replicas", `Invalid value: "string": spec.replicas in body must be of type integer: "string"`},
				FieldError{"spec.replicas", "Invalid value: 0: .spec.replicas accessor error: two is of the type string, expected int64"})},
		{"LeaderWorkerSet: null where an object is required", lws(`{replicas: 2, leaderWorkerTemplate: null}`),
			crdErrs(lwsCRD, FieldError{"spec.leaderWorkerTemplate", "Required value"})},
		{"LeaderWorkerSet: spec null is refused, as kube-apiserver refuses it under server-side apply", lws(`null`),
			crdErrs(lwsCRD, FieldError{"spec", `Invalid value: "null": spec in body must be of type object: "null"`})},
		{"StormService: spec null is refused too", storm(`null`),
			crdErrs(stormCRD, FieldError{"spec", `Invalid value: "null": spec in body must be of type object: "null"`})},
		{"LeaderWorkerSet: unknown field", lws(`{replicas: 2, leaderWorkerTemplate: {size: 2, sizee: 3, workerTemplate: {spec: {containers: [{name: w, image: "engine:1", bogus: 1}]}}}}`),
			crdErrs(lwsCRD, FieldError{"spec.leaderWorkerTemplate.sizee", unknownCRD},
				FieldError{"spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].bogus", unknownCRD})},
		{"LeaderWorkerSet: missing required field", lws(`{replicas: 2}`),
			crdErrs(lwsCRD, FieldError{"spec.leaderWorkerTemplate", "Required value"})},
		{"LeaderWorkerSet: a name the API server refuses", strings.Replace(lws(`{leaderWorkerTemplate: `+worker+`}`), "name: decode", "name: Decode", 1),
			crdErrs(lwsCRD, FieldError{"metadata.name", `Invalid value: "Decode": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`})},

		{"StormService: valid", storm(`{replicas: 1, selector: {matchLabels: {app: pd}}, template: ` + stormTmpl + `}`), crdErrs(stormCRD)},
		{"StormService: wrong type", storm(`{replicas: 1, selector: {matchLabels: {app: pd}}, template: {spec: {roles: [{name: prefill, replicas: "1", template: {spec: {containers: [{name: e, image: 3}]}}}]}}}`),
			crdErrs(stormCRD, FieldError{"spec.template.spec.roles[0].replicas", `Invalid value: "string": spec.template.spec.roles[0].replicas in body must be of type integer: "string"`},
				FieldError{"spec.template.spec.roles[0].template.spec.containers[0].image", `Invalid value: "integer": spec.template.spec.roles[0].template.spec.containers[0].image in body must be of type string: "integer"`})},
		{"StormService: null where an object is required", storm(`{selector: {matchLabels: {app: pd}}, template: null}`),
			crdErrs(stormCRD, FieldError{"spec.template", "Required value"})},
		{"StormService: unknown field", storm(`{selector: {matchLabels: {app: pd}}, template: {spec: {roles: [{name: prefill, upgradeOrderr: 1}]}}}`),
			crdErrs(stormCRD, FieldError{"spec.template.spec.roles[0].upgradeOrderr", unknownCRD})},
		{"StormService: missing required field", storm(`{template: ` + stormTmpl + `}`),
			crdErrs(stormCRD, FieldError{"spec.selector", "Required value"})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := testobjects.Parse(t, c.doc)[0]
			before := o.DeepCopy()
			got, err := Validate(o, schema.Sources{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before.Object, o.Object); diff != "" {
				t.Errorf("Validate changed the object (-before +after):\n%s", diff)
			}
		})
	}
}

// TestValidateFixtures: every workload of testdata, the custom workloads
// the CRD tests use and the built-in CRDs are valid, but StormService
// newer-fields, whose fields of Kubernetes 1.37 the aibrix CRD does not
// declare: server-side apply refuses it (apply's test against the real
// controller creates it instead).
func TestValidateFixtures(t *testing.T) {
	// The workloads of render/predict's tests.
	objs := testobjects.Read(t, "../predict/testdata/live-deployments.yaml", "../predict/testdata/live-statefulset-daemonset.yaml",
		"../predict/testdata/leaderworkersets.yaml", "../predict/testdata/stormservices.yaml")
	crds, err := schema.BuiltinCRDs()
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, crds...)
	unknown := "unknown field: not declared in the CRD's schema"
	want := map[string][]FieldError{"newer-fields": {
		{"spec.template.spec.roles[0].template.spec.hostnameOverride", unknown},
		{"spec.template.spec.roles[0].template.spec.initContainers[0].restartPolicyRules", unknown},
		{"spec.template.spec.roles[0].template.spec.resources", unknown},
	}}
	for _, o := range objs {
		v, err := Validate(o, schema.Sources{})
		if err != nil || v.Schema == "" {
			t.Fatalf("%s %s: schema %q, %v", o.GetKind(), o.GetName(), v.Schema, err)
		}
		if diff := cmp.Diff(want[o.GetName()], v.Errors); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", o.GetKind(), o.GetName(), diff)
		}
	}
}

// TestValidateSchemaSources: the CRD that checks a custom resource is the
// one predictions use: the render's, else the cluster's, else the one
// built in; a pruning schema refuses unknown fields except under
// x-kubernetes-preserve-unknown-fields, and x-kubernetes-validations
// rules run.
func TestValidateSchemaSources(t *testing.T) {
	builtin, err := schema.BuiltinCRDs()
	if err != nil {
		t.Fatal(err)
	}
	o := testobjects.Parse(t, lws(`{leaderWorkerTemplate: `+worker+`, extra: {anything: {goes: 1}}}`))[0]
	lwsBuiltin := schema.FindCRD(o, builtin)
	// changed declares spec.extra and keeps whatever is under it.
	changed := lwsBuiltin.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(changed.Object, "spec", "versions")
	extra := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	if err := unstructured.SetNestedField(versions[0].(map[string]any), extra, "schema", "openAPIV3Schema", "properties", "spec", "properties", "extra"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(changed.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	unknown := []FieldError{{"spec.extra", "unknown field: not declared in the CRD's schema"}}
	widgetCRD := testobjects.Parse(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations: [{rule: "self.replicas <= 5", message: "at most 5 replicas"}]
            properties: {replicas: {type: integer}}
`)
	for _, c := range []struct {
		name string
		o    *unstructured.Unstructured
		opts schema.Sources
		want Validation
	}{
		{"built in", o, schema.Sources{}, Validation{Schema: schema.SchemaBuiltin, CRD: lwsCRD, Errors: unknown}},
		{"render over built in", o, schema.Sources{RenderCRDs: []*unstructured.Unstructured{changed}}, Validation{Schema: schema.SchemaRender, CRD: lwsCRD}},
		{"cluster over built in", o, schema.Sources{CRDs: []*unstructured.Unstructured{changed}}, Validation{Schema: schema.SchemaCluster, CRD: lwsCRD}},
		{"render over cluster", o, schema.Sources{RenderCRDs: []*unstructured.Unstructured{lwsBuiltin}, CRDs: []*unstructured.Unstructured{changed}},
			Validation{Schema: schema.SchemaRender, CRD: lwsCRD, Errors: unknown}},
		{"no built-in CRD", o, schema.Sources{NoBuiltinCRDs: true}, Validation{}},
		{"x-kubernetes-validations", testobjects.Parse(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ignored}\nspec: {replicas: 7}\n")[0],
			schema.Sources{RenderCRDs: widgetCRD}, Validation{Schema: schema.SchemaRender, CRD: "widgets.example.com",
				Errors: []FieldError{{"spec", "Invalid value: at most 5 replicas"}}}},
		{"a version the CRD does not serve", testobjects.Parse(t, "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w}\n")[0],
			schema.Sources{RenderCRDs: widgetCRD}, Validation{Schema: schema.SchemaRender, CRD: "widgets.example.com",
				Errors: []FieldError{{"apiVersion", `Unsupported value: "example.com/v2": CRD widgets.example.com does not serve version v2`}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Validate(c.o, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateCRD: a CustomResourceDefinition in the render is decoded
// strictly and its schemas must be structural.
func TestValidateCRD(t *testing.T) {
	crd := func(schema string) string {
		return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: ` + schema + `}}]
`
	}
	for _, c := range []struct {
		name, doc string
		want      []FieldError
	}{
		{"structural", crd(`{type: object, properties: {spec: {type: object}}}`), nil},
		{"not structural", crd(`{type: object, properties: {spec: {properties: {a: {type: string}}}}}`),
			[]FieldError{{"spec.versions[0].schema.openAPIV3Schema.properties[spec].type", "Required value: must not be empty for specified object fields"}}},
		{"unknown field", strings.Replace(crd(`{type: object}`), "scope:", "scopee: x\n  scope:", 1),
			[]FieldError{{"", `strict decoding error: unknown field "spec.scopee"`}}},
		{"v1beta1", strings.Replace(crd(`{type: object}`), "/v1\n", "/v1beta1\n", 1),
			[]FieldError{{"apiVersion", `Unsupported value: "apiextensions.k8s.io/v1beta1": Kubernetes v1.37.2 serves CustomResourceDefinition as apiextensions.k8s.io/v1 only`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Validate(testobjects.Parse(t, c.doc)[0], schema.Sources{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(Validation{Schema: schema.SchemaBuiltin, Errors: c.want}, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
