package model

import (
	"strings"
	"testing"
)

func TestCheckRoleName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, app, role string
		// wantErr is a part of the error; "" accepts.
		wantErr string
	}{
		{name: "label", app: "web", role: "prefill"},
		{name: "digits and dashes", app: "web", role: "db-2"},
		{name: "63 characters", app: "web", role: strings.Repeat("r", 63)},
		{name: "parent directory", app: "web", role: "..", wantErr: "not a valid role name"},
		{name: "path into another app", app: "web", role: "../other-app/x", wantErr: "not a valid role name"},
		{name: "slash", app: "web", role: "a/b", wantErr: "not a valid role name"},
		{name: "dot", app: "web", role: "a.b", wantErr: "not a valid role name"},
		{name: "upper case", app: "web", role: "Web", wantErr: "not a valid role name"},
		{name: "leading dash", app: "web", role: "-x", wantErr: "not a valid role name"},
		{name: "empty", app: "web", role: "", wantErr: "not a valid role name"},
		{name: "newline", app: "web", role: "a\nb", wantErr: "not a valid role name"},
		{name: "64 characters", app: "web", role: strings.Repeat("r", 64), wantErr: "must be no more than 63 characters"},
		{name: "revision name too long", app: strings.Repeat("a", 200), role: strings.Repeat("r", 50), wantErr: "would not be valid object names"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRoleName(tc.app, tc.role)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("got %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}
