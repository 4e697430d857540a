package apply

import (
	"slices"
	"testing"
)

// TestChangedPaths: maps are walked, lists compared whole, keys on one
// side only count, outermost paths first.
func TestChangedPaths(t *testing.T) {
	live := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"team": "a", "keep": "x"}},
		"spec": map[string]any{"replicas": int64(5), "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "main", "image": "web:2"}}}}},
	}
	desired := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"keep": "x", "tier": "web"}},
		"spec": map[string]any{"replicas": int64(2), "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "main", "image": "web:1"}}}}},
		"data": map[string]any{"k": "v"},
	}
	want := []string{"data", "spec.replicas", "metadata.labels.team", "metadata.labels.tier", "spec.template.spec.containers"}
	if got := ChangedPaths(live, desired); !slices.Equal(got, want) {
		t.Errorf("ChangedPaths = %v, want %v", got, want)
	}
	if got := ChangedPaths(live, live); len(got) != 0 {
		t.Errorf("ChangedPaths of equal objects = %v", got)
	}
}
