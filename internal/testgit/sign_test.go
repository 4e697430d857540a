package testgit

import (
	"fmt"
	"strings"
	"testing"
)

func TestSignedFixtureCommits(t *testing.T) {
	s := New(t, Options{})
	r, _ := newRepo(t, s)
	keys := map[string]SigningKey{
		"openpgp": NewPGPKey(t, "Release", "release@example.com"),
		"ssh":     NewSSHKey(t, "dev@example.com"),
	}
	for name, key := range keys {
		t.Run(name, func(t *testing.T) {
			signed, err := r.CommitSigned("main", "signed "+name, map[string]string{"a.yaml": name + "\n"}, key)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.VerifyCommit(signed, key); err != nil {
				t.Errorf("git verify-commit of a signed commit: %v", err)
			}
			unsigned, err := r.Commit("main", "unsigned "+name, map[string]string{"b.yaml": name + "\n"})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.VerifyCommit(unsigned, key); err == nil {
				t.Error("git verify-commit accepted an unsigned commit")
			}
			if err := r.TagSigned("signed-"+name, signed, key); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestImport(t *testing.T) {
	s := New(t, Options{})
	r, first := newRepo(t, s)
	last, err := r.Import("main", 300, func(i int) map[string]string {
		return map[string]string{fmt.Sprintf("d%d/f.yaml", i%7): fmt.Sprintf("i: %d\n", i)}
	})
	if err != nil {
		t.Fatal(err)
	}
	log, err := r.Log("main")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 301 || log[0] != "import 299" || log[300] != "first" {
		t.Errorf("log has %d commits, newest %q, oldest %q; want 301 from first to import 299", len(log), log[0], log[len(log)-1])
	}
	if got, err := r.Show(last, "d5/f.yaml"); err != nil || got != "i: 299\n" {
		t.Errorf("d5/f.yaml = %q, %v", got, err)
	}
	if got, err := r.Show(last, "apps/web/kustomization.yaml"); err != nil || got != "resources: []\n" {
		t.Errorf("the first commit's file is gone: %q, %v", got, err)
	}
	next, err := r.Commit("main", "after", map[string]string{"x.yaml": "x\n"})
	if err != nil {
		t.Fatal(err)
	}
	if parent, err := r.Rev(next + "^"); err != nil || parent != last {
		t.Errorf("a commit after Import has parent %s, %v; want %s", parent, err, last)
	}
	if strings.HasPrefix(first, last) {
		t.Error("Import made no commit")
	}
}
