package internal_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// surface are the packages a user imports: what `make api` counts.
var surface = []string{"ryno", "tables", "relationships", "indexing", "migrations", "changes", "cli", "rynotest"}

// TestPublicTypesAreDefinedInPublicPackages holds that every exported type of the
// public packages is one a user can read about: go doc shows the fields and methods
// of a type defined in a public package, and only "type X = y.Z" for an alias of
// one under internal/, which the user cannot open.
func TestPublicTypesAreDefinedInPublicPackages(t *testing.T) {
	checked := 0
	for _, dir := range surface {
		p := parsePackage(t, filepath.Join("..", dir))
		for _, f := range p.Files {
			imports := importsOf(f)
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.TYPE {
					continue
				}
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					if !ts.Name.IsExported() {
						continue
					}
					checked++
					if ts.Assign == 0 {
						continue
					}
					if path := aliasedPackage(ts.Type, imports); strings.Contains(path, "/internal/") {
						t.Errorf("%s.%s is an alias of a type of %s: define it in a public package", dir, ts.Name.Name, path)
					}
				}
			}
		}
	}
	if checked < len(surface) {
		t.Fatalf("checked %d types in %d packages", checked, len(surface))
	}
}

// TestGoDocShowsTheFieldsOfTablesNames reads package tables as go doc does: Names
// is a struct shown with its fields and methods.
func TestGoDocShowsTheFieldsOfTablesNames(t *testing.T) {
	p := parsePackage(t, filepath.Join("..", "tables"))
	d := doc.New(p, "github.com/rynodb/rynodb/tables", 0)
	for _, typ := range d.Types {
		if typ.Name != "Names" {
			continue
		}
		st, ok := typ.Decl.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType)
		if !ok {
			t.Fatalf("tables.Names is not a struct go doc can show")
		}
		if len(st.Fields.List) == 0 || len(typ.Methods) == 0 {
			t.Fatalf("go doc shows %d fields and %d methods of tables.Names", len(st.Fields.List), len(typ.Methods))
		}
		return
	}
	t.Fatal("package tables has no type Names")
}

// parsePackage parses the non-test files of the package in dir.
func parsePackage(t *testing.T, dir string) *ast.Package {
	t.Helper()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, notTest, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 {
		t.Fatalf("%s holds %d packages", dir, len(pkgs))
	}
	for _, p := range pkgs {
		return p
	}
	return nil
}

// importsOf maps the names f refers to its imports by to their paths.
func importsOf(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if spec.Name != nil {
			name = spec.Name.Name
		}
		out[name] = path
	}
	return out
}

// aliasedPackage returns the import path of the package whose type expr names, or
// "" for a type of the same package.
func aliasedPackage(expr ast.Expr, imports map[string]string) string {
	switch e := expr.(type) {
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return imports[x.Name]
		}
	case *ast.IndexExpr: // a generic type instantiated
		return aliasedPackage(e.X, imports)
	case *ast.IndexListExpr:
		return aliasedPackage(e.X, imports)
	case *ast.StarExpr:
		return aliasedPackage(e.X, imports)
	}
	return ""
}
