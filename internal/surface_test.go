package internal_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// surface are the packages a user imports: what `make api` counts.
var surface = []string{"ryno", "entity", "tables", "relationships", "indexing", "migrations", "changes", "cli", "rynotest"}

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

// TestNoExportedSignatureNamesAnInternalType holds that a user never meets a type
// of internal/ in what the public packages export: the parameters and results of
// exported functions and methods, exported struct fields, and the types exported
// types are defined as (a func type's parameters, say).
func TestNoExportedSignatureNamesAnInternalType(t *testing.T) {
	for _, dir := range surface {
		p := parsePackage(t, filepath.Join("..", dir))
		for name, f := range p.Files {
			imports := importsOf(f)
			report := func(where string, expr ast.Node) {
				for _, path := range internalPackages(expr, imports) {
					t.Errorf("%s: %s names a type of %s", filepath.Base(name), where, path)
				}
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || (d.Recv != nil && !exportedReceiver(d.Recv)) {
						continue
					}
					report(dir+"."+d.Name.Name, d.Type)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() {
							report(dir+"."+ts.Name.Name, exportedPart(ts.Type))
						}
					}
				}
			}
		}
	}
}

// exportedReceiver reports whether a method's receiver is of an exported type.
func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	for {
		switch e := typ.(type) {
		case *ast.StarExpr:
			typ = e.X
		case *ast.IndexExpr:
			typ = e.X
		case *ast.IndexListExpr:
			typ = e.X
		case *ast.Ident:
			return e.IsExported()
		default:
			return false
		}
	}
}

// exportedPart is what a user sees of a type definition: a struct's exported
// fields, or the whole of any other type.
func exportedPart(typ ast.Expr) ast.Node {
	st, ok := typ.(*ast.StructType)
	if !ok {
		return typ
	}
	out := &ast.FieldList{}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 || slices.ContainsFunc(f.Names, func(n *ast.Ident) bool { return n.IsExported() }) {
			out.List = append(out.List, f)
		}
	}
	return out
}

// internalPackages returns the import paths under internal/ that n names a type of.
func internalPackages(n ast.Node, imports map[string]string) []string {
	var out []string
	ast.Inspect(n, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && strings.Contains(imports[x.Name], "/internal/") {
				out = append(out, imports[x.Name]+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}
