package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// goDirective matches the go line of a go.mod: a version without a patch number.
var goDirective = regexp.MustCompile(`(?m)^go (\d+\.\d+(\.\d+)?)$`)

// TestAServiceBuildsWithTheModulesGoVersion builds a throwaway module that depends on
// this one and declares the same go version: the library must not force a service's
// go line up.
func TestAServiceBuildsWithTheModulesGoVersion(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	m := goDirective.FindSubmatch(mod)
	require.NotNil(t, m, "go.mod has a go line")
	version := string(m[1])
	require.Empty(t, m[2], "the go line %s has no patch number", version)

	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("go.mod", "module example.com/service\n\ngo "+version+"\n\nrequire github.com/rynodb/rynodb v0.0.0\n\nreplace github.com/rynodb/rynodb => "+root+"\n")
	write("main.go", `package main

import (
	"fmt"

	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

func main() {
	fmt.Println(ryno.Key{Scope: "s", Type: "t", ID: "i"}, migrations.CurrentVersion)
}
`)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %v: %s", args, out)
	}
	run("mod", "tidy")
	run("build", "./...")
	tidied, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	require.Equal(t, version, string(goDirective.FindSubmatch(tidied)[1]), "the service keeps its go line")
}
