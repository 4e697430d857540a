package secrets

import (
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	secret := func(pw string) map[string]any {
		return map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata":   map[string]any{"name": "s", "annotations": map[string]any{lastApplied: `{"stringData":{"pw":"` + pw + `"}}`, "keep": "me"}},
			"data":       map[string]any{"token": "aHVudGVyMg=="},
			"stringData": map[string]any{"pw": pw},
		}
	}
	a, b, c := secret("one"), secret("one"), secret("two")
	Mask(a, "ns/s")
	Mask(b, "ns/s")
	Mask(c, "ns/s")
	for _, v := range []string{a["stringData"].(map[string]any)["pw"].(string), a["data"].(map[string]any)["token"].(string)} {
		if !strings.HasPrefix(v, Prefix) || strings.Contains(v, "one") || strings.Contains(v, "hunter2") {
			t.Errorf("masked value %q", v)
		}
	}
	if a["stringData"].(map[string]any)["pw"] != b["stringData"].(map[string]any)["pw"] {
		t.Error("the same value must mask the same")
	}
	if a["stringData"].(map[string]any)["pw"] == c["stringData"].(map[string]any)["pw"] {
		t.Error("a changed value must mask differently")
	}
	ann := a["metadata"].(map[string]any)["annotations"].(map[string]any)
	if strings.Contains(ann[lastApplied].(string), "one") || ann["keep"] != "me" {
		t.Errorf("annotations after masking: %v", ann)
	}
}
