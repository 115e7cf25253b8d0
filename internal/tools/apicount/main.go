// Command apicount prints how many identifiers each package exports: its exported
// constants, variables, types and functions (top-level), and apart from them the
// exported methods of its exported types. `make api` runs it on the public packages.
//
// A top-level name that only names again what another package of the list exports
// (type Key = entity.Key, const TraceList = check.TraceList) is counted in the
// column "again" too: such a name is one more word of a package's documentation,
// but no new type or value; the last line counts the distinct ones.
//
// Usage:
//
//	apicount [-v] DIR...
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list the identifiers")
	flag.Parse()
	log.SetFlags(0)
	var sum [3]int
	fmt.Printf("%-16s %9s %8s %6s\n", "package", "top-level", "methods", "again")
	listed := map[string]bool{}
	for _, dir := range flag.Args() {
		listed[filepath.Base(dir)] = true
	}
	for _, dir := range flag.Args() {
		names, again, err := exported(dir, listed)
		if err != nil {
			log.Fatal(err)
		}
		var n [3]int
		for _, name := range names {
			if strings.Contains(name, ".") {
				n[1]++
			} else {
				n[0]++
			}
		}
		n[2] = len(again)
		for i := range sum {
			sum[i] += n[i]
		}
		fmt.Printf("%-16s %9d %8d %6d\n", filepath.Base(dir), n[0], n[1], n[2])
		if *verbose {
			fmt.Println("    " + strings.Join(names, " "))
			if len(again) > 0 {
				fmt.Println("    again: " + strings.Join(again, " "))
			}
		}
	}
	fmt.Printf("%-16s %9d %8d %6d\n", "total", sum[0], sum[1], sum[2])
	fmt.Printf("%-16s %9d %8d\n", "distinct", sum[0]-sum[2], sum[1])
}

// exported returns the sorted exported identifiers of the package in dir, tests
// excluded, a method named Type.Method; and those of them that name again what a
// package of listed (by folder name) exports.
func exported(dir string, listed map[string]bool) (names, again []string, err error) {
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, notTest, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			imported := listedImports(f, listed)
			for _, d := range f.Decls {
				names = append(names, declNames(d)...)
				again = append(again, namedAgain(d, imported)...)
			}
		}
	}
	slices.Sort(names)
	slices.Sort(again)
	return names, again, nil
}

// listedImports returns the names under which f imports the packages of listed.
func listedImports(f *ast.File, listed map[string]bool) map[string]bool {
	names := map[string]bool{}
	for _, spec := range f.Imports {
		path := strings.Trim(spec.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if !listed[name] || strings.Contains(path, "/internal/") {
			continue
		}
		if spec.Name != nil {
			name = spec.Name.Name
		}
		names[name] = true
	}
	return names
}

// namedAgain returns the exported names d declares as an alias of, or a constant
// or variable equal to, a name of a package imported under a name in imported.
func namedAgain(d ast.Decl, imported map[string]bool) []string {
	gd, ok := d.(*ast.GenDecl)
	if !ok {
		return nil
	}
	fromListed := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && imported[pkg.Name]
	}
	var names []string
	for _, s := range gd.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if s.Name.IsExported() && s.Assign.IsValid() && fromListed(s.Type) {
				names = append(names, s.Name.Name)
			}
		case *ast.ValueSpec:
			for i, n := range s.Names {
				if n.IsExported() && i < len(s.Values) && fromListed(s.Values[i]) {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
		if recv := receiver(d.Recv.List[0].Type); recv != "" {
			return []string{recv + "." + d.Name.Name}
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					names = append(names, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// receiver returns the name of an exported receiver type, or "".
func receiver(t ast.Expr) string {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			if x.IsExported() {
				return x.Name
			}
			return ""
		default:
			return ""
		}
	}
}
