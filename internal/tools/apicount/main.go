// Command apicount prints how many identifiers each package exports: its exported
// constants, variables, types and functions (top-level), and apart from them the
// exported methods of its exported types. `make api` runs it on the public packages.
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
	var sum [2]int
	fmt.Printf("%-16s %9s %8s\n", "package", "top-level", "methods")
	for _, dir := range flag.Args() {
		names, err := exported(dir)
		if err != nil {
			log.Fatal(err)
		}
		var n [2]int
		for _, name := range names {
			if strings.Contains(name, ".") {
				n[1]++
			} else {
				n[0]++
			}
		}
		sum[0], sum[1] = sum[0]+n[0], sum[1]+n[1]
		fmt.Printf("%-16s %9d %8d\n", filepath.Base(dir), n[0], n[1])
		if *verbose {
			fmt.Println("    " + strings.Join(names, " "))
		}
	}
	fmt.Printf("%-16s %9d %8d\n", "total", sum[0], sum[1])
}

// exported returns the sorted exported identifiers of the package in dir, tests
// excluded; a method is named Type.Method.
func exported(dir string) ([]string, error) {
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, notTest, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				names = append(names, declNames(d)...)
			}
		}
	}
	slices.Sort(names)
	return names, nil
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
