// Package internal_test holds the rule of the house: imports point one way, from
// the public packages down to the internal ones, from those down to the public
// leaves that define what both share, and from the request pipeline down to the SDK.
package internal_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/rynodb/rynodb/"

// mayImport lists, for the internal packages the layering constrains most, the
// packages of this module each may import.
var mayImport = map[string][]string{
	"errs":          {"tables"},
	"schema":        {"internal/errs", "tables"},
	"paging":        {},
	"batching":      {"internal/errs", "internal/schema", "tables"},
	"requests":      {"internal/batching", "tables"},
	"commit":        {"internal/batching"},
	"relationships": {"entity", "internal/errs", "internal/schema"},
	"indexentries":  {"indexing", "internal/errs", "internal/schema"},
	"actions":       {"entity", "internal/batching", "internal/commit", "internal/indexentries", "internal/relationships", "internal/schema"},
	"entitystate":   {"internal/actions", "internal/indexentries", "internal/schema"},
	"exprtest":      {},
	"indexes":       {"entity", "indexing", "internal/batching", "internal/entitystate", "internal/indexentries", "internal/relationships", "internal/schema"},
	"store":         {"entity", "indexing", "internal/actions", "internal/batching", "internal/commit", "internal/entitystate", "internal/errs", "internal/indexentries", "internal/indexes", "internal/paging", "internal/relationships", "internal/requests", "internal/schema", "tables"},
	"lists":         {"entity", "internal/actions", "internal/batching", "internal/commit", "internal/entitystate", "internal/errs", "internal/relationships", "internal/schema", "internal/store"},
	"writes":        {"entity", "internal/actions", "internal/batching", "internal/commit", "internal/entitystate", "internal/errs", "internal/indexentries", "internal/lists", "internal/indexes", "internal/relationships", "internal/schema", "internal/store"},
	"deletes":       {"entity", "internal/actions", "internal/batching", "internal/commit", "internal/entitystate", "internal/errs", "internal/indexentries", "internal/lists", "internal/relationships", "internal/schema", "internal/store"},
	"transfer":      {"bulk", "entity", "internal/batching", "internal/entitystate", "internal/errs", "internal/lists", "internal/relationships", "internal/schema", "internal/store", "internal/writes"},
	"maintenance":   {"check", "indexing", "internal/actions", "internal/batching", "internal/commit", "internal/deletes", "internal/entitystate", "internal/errs", "internal/indexentries", "internal/lists", "internal/relationships", "internal/schema", "internal/store"},
}

// public are the packages of the public face that no internal package may import.
var public = []string{"ryno", "migrations", "changes", "cli", "rynotest"}

// leaves are the public packages that define what users and the machinery share
// (the table names, the errors every package returns): internal packages import
// them, so they import no package of this module.
var leaves = []string{"tables"}

// shared are the other public packages that internal packages import (the keys and
// refusals of entities, index values, what a check reports), with the packages of
// this module each may import: only the pure leaves under every part of the
// machinery, and entity, on which the others build.
var shared = map[string][]string{
	"entity":   {"internal/errs", "internal/schema"},
	"indexing": {"entity", "internal/errs", "internal/schema"},
	"check":    {"entity", "tables"},
	"bulk":     {"entity", "tables"},
}

func TestImportsPointOneWay(t *testing.T) {
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "tools" {
			continue
		}
		for _, imp := range moduleImports(t, d.Name()) {
			if slices.Contains(public, strings.Split(imp, "/")[0]) {
				t.Errorf("internal/%s imports %s: internal packages serve the public face and may not import it", d.Name(), imp)
			}
			if allowed, ok := mayImport[d.Name()]; ok && !slices.Contains(allowed, imp) {
				t.Errorf("internal/%s imports %s; it may import only %v", d.Name(), imp, allowed)
			}
		}
		checked++
	}
	if checked < len(mayImport) {
		t.Fatalf("checked %d packages, fewer than the %d the rules name", checked, len(mayImport))
	}
}

func TestLeavesImportNothingOfTheModule(t *testing.T) {
	for _, leaf := range leaves {
		if files, _ := filepath.Glob(filepath.Join("..", leaf, "*.go")); len(files) == 0 {
			t.Fatalf("no Go files in %s", leaf)
		}
		if imps := moduleImports(t, filepath.Join("..", leaf)); len(imps) > 0 {
			t.Errorf("%s imports %v: internal packages import it, so it may import no package of this module", leaf, imps)
		}
	}
}

func TestSharedPackagesImportOnlyLeaves(t *testing.T) {
	for pkg, allowed := range shared {
		for _, imp := range moduleImports(t, filepath.Join("..", pkg)) {
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s; internal packages import it, so it may import only %v", pkg, imp, allowed)
			}
		}
	}
}

// moduleImports returns the packages of this module that the non-test files of
// dir import, relative to the module.
func moduleImports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range parsed.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if rest, ok := strings.CutPrefix(path, module); ok && !slices.Contains(out, rest) {
				out = append(out, rest)
			}
		}
	}
	return out
}
