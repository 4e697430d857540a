package render

import (
	"testing"
)

func TestWithOriginAnnotations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"resources: [a.yaml]\n", "resources: [a.yaml]\nbuildMetadata:\n- originAnnotations\n"},
		{"resources: [a.yaml]\nbuildMetadata: [managedByLabel]\n", "resources: [a.yaml]\nbuildMetadata: [managedByLabel, originAnnotations]\n"},
		{"buildMetadata:\n", "buildMetadata:\n- originAnnotations\n"},
		{`{"resources": ["a.yaml"]}`, "{\"resources\": [\"a.yaml\"], buildMetadata: [originAnnotations]}\n"},
		{"- not a mapping\n", "- not a mapping\n"},
		{"buildMetadata: yes\n", "buildMetadata: yes\n"},
		{"resources: [\n", "resources: [\n"},
	} {
		got, asked := withOriginAnnotations([]byte(tc.in))
		if string(got) != tc.want || asked {
			t.Errorf("withOriginAnnotations(%q) = %q, %v; want %q", tc.in, got, asked, tc.want)
		}
	}
	if got, asked := withOriginAnnotations([]byte("buildMetadata: [originAnnotations]\n")); !asked || string(got) != "buildMetadata: [originAnnotations]\n" {
		t.Errorf("the user's own originAnnotations: %q, asked %v", got, asked)
	}
}
