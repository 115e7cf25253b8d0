// Package docs_test holds the manual to the code: every Go block of README.md and
// docs/*.md type-checks against the module as it is, and every link between the
// documents resolves. It needs no DynamoDB.
package docs_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the module's directory, where the documents are, seen from docs/.
const root = ".."

// preamble declares the names the guides' fragments share, so that a fragment
// reads as it would in a program: a client and its context, the keys of the
// examples, and the functions a fragment leaves to its reader.
const preamble = `package p

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"go.opentelemetry.io/otel/trace"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

var (
	ctx     context.Context
	db      *ryno.Client
	staging *ryno.Client
	api    ryno.DynamoDBAPI
	client *dynamodb.Client
	cfg    aws.Config
	tp     trace.TracerProvider
	t      *testing.T
	w      http.ResponseWriter

	key, k, ada, grace, alan, linus, post1, post2, post3 ryno.Key
	board, c1, c2, c3, project, group, invitation, member ryno.Key
	from, to, orderKey, stockKey                         ryno.Key
	cards, reordered, order                              []ryno.Key
	version, title                                       string
	attrs                                                map[string]any
	p                                                    ryno.Patch
	byStatus                                             ryno.ScopedIndex
	march1, april1                                       time.Time
	indexes, myIndexes                                   []ryno.Index
	owns                                                 []ryno.Owns
	sets                                                 []string
	costs                                                metrics
)

type Book struct {
	ryno.Record
	Title string ` + "`dynamodbav:\"title\"`" + `
	Pages int    ` + "`dynamodbav:\"pages\"`" + `
}

type metrics struct{}

func (metrics) Add(...any) {}

func use(...any)                      {}
func opened(*ryno.Entity) time.Time { return time.Time{} }

func byProjectStatusOpened(e *ryno.Entity, emit func(indexing.Value)) {}
func byPriority(e *ryno.Entity, emit func(indexing.Value))            {}
func byTime(e *ryno.Entity, emit func(indexing.Value))                {}
func byLabels(e *ryno.Entity, emit func(indexing.Value))              {}
`

// autoImports are the packages a fragment may name without importing them, by the
// name it uses.
var autoImports = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "log": "log", "os": "os",
	"signal": "os/signal", "strconv": "strconv", "time": "time", "testing": "testing",
	"http": "net/http", "base64": "encoding/base64",
	"aws":             "github.com/aws/aws-sdk-go-v2/aws",
	"awshttp":         "github.com/aws/aws-sdk-go-v2/aws/transport/http",
	"config":          "github.com/aws/aws-sdk-go-v2/config",
	"credentials":     "github.com/aws/aws-sdk-go-v2/credentials",
	"dynamodb":        "github.com/aws/aws-sdk-go-v2/service/dynamodb",
	"attributevalue":  "github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue",
	"events":          "github.com/aws/aws-lambda-go/events",
	"lambda":          "github.com/aws/aws-lambda-go/lambda",
	"otelaws":         "go.opentelemetry.io/contrib/instrumentation/github.com/aws/aws-sdk-go-v2/otelaws",
	"ryno":            "github.com/rynodb/rynodb/ryno",
	"indexing":        "github.com/rynodb/rynodb/indexing",
	"changes":         "github.com/rynodb/rynodb/changes",
	"dynamodbstreams": "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams",
	"migrations":      "github.com/rynodb/rynodb/migrations",
	"rynotest":        "github.com/rynodb/rynodb/rynotest",
	"bulk":            "github.com/rynodb/rynodb/bulk",
	"cli":             "github.com/rynodb/rynodb/cli",
}

// block is one fenced Go block of a document.
type block struct {
	doc  string // the document's path, from the module's directory
	line int    // the line of the opening fence
	src  string // the code, without the fence's indentation
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.doc, b.line) }

// manual returns the paths of the documents holding Go blocks.
func manual(t *testing.T) []string {
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(guides) == 0 {
		t.Fatalf("no guides in docs/: %v", err)
	}
	docs := []string{"README.md"}
	for _, g := range guides {
		docs = append(docs, filepath.ToSlash(strings.TrimPrefix(g, root+string(filepath.Separator))))
	}
	return docs
}

var fence = regexp.MustCompile("^(\\s*)(```+)\\s*(\\S*)\\s*$")

// goBlocks returns the ```go blocks of text, the document at doc.
func goBlocks(doc, text string) ([]block, error) {
	var out []block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, ticks, lang := m[1], m[2], m[3]
		start := i
		var code []string
		for i++; i < len(lines); i++ {
			if c := fence.FindStringSubmatch(lines[i]); c != nil && c[2] == ticks && c[3] == "" {
				break
			}
			code = append(code, strings.TrimPrefix(lines[i], indent))
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: a code block is never closed", doc, start+1)
		}
		if lang == "go" {
			out = append(out, block{doc: doc, line: start + 1, src: strings.Join(code, "\n") + "\n"})
		}
	}
	return out, nil
}

// unused matches the errors a fragment may make: a name it declares or imports
// for the reader to use.
var unused = regexp.MustCompile(`declared and not used|imported (as \w+ )?and not used`)

func TestGoBlocksCompile(t *testing.T) {
	var blocks []block
	for _, doc := range manual(t) {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		bs, err := goBlocks(doc, string(text))
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, bs...)
	}
	if len(blocks) == 0 {
		t.Fatal("no Go blocks in the manual")
	}
	units := make([]unit, len(blocks))
	paths := slices.Collect(maps.Values(autoImports))
	for i, b := range blocks {
		units[i] = wrap(b)
		paths = append(paths, units[i].imports...)
	}
	fset := token.NewFileSet()
	imp := exportImporter(t, fset, paths)
	for i, b := range blocks {
		t.Run(b.String(), func(t *testing.T) {
			for _, err := range check(fset, imp, units[i]) {
				t.Error(err)
			}
		})
	}
}

// unit is a block as the type checker gets it: whole, or wrapped in a file that
// imports what it names, beside the preamble.
type unit struct {
	block
	src      string // the file
	offset   int    // the document's line is offset + the file's line
	fragment bool   // checked beside the preamble
	imports  []string
	err      error // the block does not parse, however wrapped
}

// wrap makes b a file: as it is when it starts with a package clause, otherwise
// after its imports and the auto-imports it lacks, as top-level declarations, as
// the fields of a ryno.Options literal (a block starting "Name: "), or else as the
// body of a function returning an error.
func wrap(b block) unit {
	u := unit{block: b, offset: b.line}
	if strings.HasPrefix(strings.TrimSpace(stripComments(b.src)), "package ") {
		u.src = b.src
		if f, err := parser.ParseFile(token.NewFileSet(), "", b.src, parser.ImportsOnly); err == nil {
			u.imports = importPaths(f)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "", b.src, 0); err != nil {
			u.err = err
		}
		return u
	}
	u.fragment = true
	// The imports a fragment opens with go first in the file.
	const clause = "package p\n"
	fs := token.NewFileSet()
	head, err := parser.ParseFile(fs, "", clause+b.src, parser.ImportsOnly)
	if err != nil || head == nil {
		head = &ast.File{}
	}
	rest, skipped := b.src, 0
	own := map[string]bool{}
	u.imports = importPaths(head)
	for _, s := range head.Imports {
		own[importName(s)] = true
	}
	if n := len(head.Decls); n > 0 {
		end := fs.Position(head.Decls[n-1].End()).Offset - len(clause)
		skipped = strings.Count(b.src[:end], "\n")
		rest = b.src[end:]
	}
	var imports strings.Builder
	imports.WriteString("package p\n\nimport (\n")
	for _, s := range head.Imports {
		fmt.Fprintf(&imports, "\t%s\n", importSpec(s))
	}
	for _, name := range slices.Sorted(maps.Keys(autoImports)) {
		if !own[name] {
			fmt.Fprintf(&imports, "\t%s %q\n", name, autoImports[name])
		}
	}
	imports.WriteString(")\n")
	header := imports.String()
	lines := strings.Count(header, "\n")
	field := regexp.MustCompile(`^[A-Z]\w*:\s`).MatchString(strings.TrimSpace(stripComments(rest)))
	candidates := []struct {
		open, close string
		ok          bool
	}{
		{"", "", true},
		{"var _ = ryno.Options{\n", ",\n}\n", field},
		{"func _() error {\n", "\nreturn nil\n}\n", true},
	}
	for _, c := range candidates {
		if !c.ok {
			continue
		}
		body := rest
		if c.close == ",\n}\n" {
			body = strings.TrimSuffix(strings.TrimRight(rest, " \t\n"), ",")
		}
		src := header + c.open + body + c.close
		u.src, u.offset = src, b.line+skipped-lines-strings.Count(c.open, "\n")
		if _, err := parser.ParseFile(token.NewFileSet(), "", src, 0); err == nil {
			u.err = nil
			return u
		} else if c.close == "\nreturn nil\n}\n" {
			u.err = err
		}
	}
	return u
}

// stripComments drops the line comments that open src.
func stripComments(src string) string {
	for {
		src = strings.TrimLeft(src, " \t\n")
		if !strings.HasPrefix(src, "//") {
			return src
		}
		_, src, _ = strings.Cut(src, "\n")
	}
}

func importPaths(f *ast.File) []string {
	var paths []string
	for _, s := range f.Imports {
		if p, err := strconv.Unquote(s.Path.Value); err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

func importName(s *ast.ImportSpec) string {
	if s.Name != nil {
		return s.Name.Name
	}
	p, _ := strconv.Unquote(s.Path.Value)
	return p[strings.LastIndex(p, "/")+1:]
}

func importSpec(s *ast.ImportSpec) string {
	if s.Name != nil {
		return s.Name.Name + " " + s.Path.Value
	}
	return s.Path.Value
}

// check type-checks u and returns its errors, but for names left unused, each at
// its line in the document.
func check(fset *token.FileSet, imp types.Importer, u unit) []error {
	if u.err != nil {
		var list scanner.ErrorList
		if !errors.As(u.err, &list) {
			return []error{fmt.Errorf("%s: %v", u.block, u.err)}
		}
		var errs []error
		for _, e := range list {
			errs = append(errs, fmt.Errorf("%s:%d: does not parse as a file, declarations, fields of ryno.Options or statements: %s\n%s",
				u.doc, u.offset+e.Pos.Line, e.Msg, excerpt(u.src, e.Pos.Line)))
		}
		return errs
	}
	var files []*ast.File
	if u.fragment {
		pre, err := parser.ParseFile(fset, "preamble.go", preamble, 0)
		if err != nil {
			return []error{fmt.Errorf("preamble: %v", err)}
		}
		files = append(files, pre)
	}
	name := u.block.String()
	f, err := parser.ParseFile(fset, name, u.src, 0)
	if err != nil {
		return []error{err}
	}
	files = append(files, f)
	var errs []error
	conf := types.Config{Importer: imp, Error: func(err error) {
		var te types.Error
		if !errors.As(err, &te) {
			errs = append(errs, err)
			return
		}
		if unused.MatchString(te.Msg) {
			return
		}
		pos := te.Fset.Position(te.Pos)
		if pos.Filename == name {
			errs = append(errs, fmt.Errorf("%s:%d: %s\n%s", u.doc, u.offset+pos.Line, te.Msg, excerpt(u.src, pos.Line)))
			return
		}
		errs = append(errs, fmt.Errorf("%s (in %s): %s: %s", u.block, pos.Filename, pos, te.Msg))
	}}
	_, _ = conf.Check("p", fset, files, nil)
	return errs
}

// excerpt returns line n of src, to show with an error.
func excerpt(src string, n int) string {
	lines := strings.Split(src, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return "\t" + strings.TrimSpace(lines[n-1])
}

// exportImporter returns an importer of the compiled export data of paths and
// their dependencies, as the go command builds them in the module's workspace
// (go.work joins the modules whose packages the guides name).
func exportImporter(t *testing.T, fset *token.FileSet, paths []string) types.Importer {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	slices.Sort(paths)
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{with .Error}}{{.Err}}{{end}}"}, slices.Compact(paths)...)
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export of the packages the manual names: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, rest, _ := strings.Cut(sc.Text(), "\t")
		file, perr, _ := strings.Cut(rest, "\t")
		if perr != "" {
			t.Fatalf("go list %s: %s", path, perr)
		}
		exports[path] = file
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// documents are the manual's pages whose links are checked, from the module's
// directory.
func documents(t *testing.T) []string {
	return append(manual(t), "CHANGELOG.md", "CONTRIBUTING.md", "ARCHITECTURE.md")
}

var (
	linkTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading    = regexp.MustCompile(`^#{1,6} (.*)$`)
	nonSlug    = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// TestLinksResolve checks every relative link of the manual: the file it names
// exists, and so does the heading its #anchor names, as GitHub spells anchors.
func TestLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(doc string) (map[string]bool, error) {
		if a, ok := anchors[doc]; ok {
			return a, nil
		}
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			return nil, err
		}
		anchors[doc] = headingAnchors(string(text))
		return anchors[doc], nil
	}
	for _, doc := range documents(t) {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		prose := maskCode(string(text))
		for _, m := range linkTarget.FindAllStringSubmatchIndex(prose, -1) {
			target := prose[m[2]:m[3]]
			line := 1 + strings.Count(prose[:m[2]], "\n")
			if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
				continue // a URL: not checked offline
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := doc
			if path != "" {
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(doc), path))
				if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
					t.Errorf("%s:%d: link to %s: no such file", doc, line, target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s:%d: link to %s: an anchor in a file that is not a document", doc, line, target)
				continue
			}
			a, err := anchorsOf(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !a[anchor] {
				t.Errorf("%s:%d: link to %s: %s has no heading #%s", doc, line, target, dest, anchor)
			}
		}
	}
}

// headingAnchors returns the anchors of the headings of text, outside code, as
// GitHub makes them: lower case, punctuation dropped, spaces as hyphens, a number
// after a repeated one.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	masked := strings.Split(maskCode(text), "\n")
	for i, line := range strings.Split(text, "\n") {
		m := heading.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(masked[i], "#") {
			continue
		}
		slug := strings.ReplaceAll(nonSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		if n, ok := seen[slug]; ok {
			seen[slug] = n + 1
			slug = fmt.Sprintf("%s-%d", slug, n+1)
		} else {
			seen[slug] = 0
		}
		out[slug] = true
	}
	return out
}

// maskCode blanks fenced blocks and code spans of text, keeping its lines, so that
// what looks like a link or a heading in code is neither. A code span ends in its
// paragraph.
func maskCode(text string) string {
	lines := strings.Split(text, "\n")
	var open string // the fence of the block being masked
	for i, line := range lines {
		if m := fence.FindStringSubmatch(line); m != nil && (open == "" || m[2] == open && m[3] == "") {
			if open == "" {
				open = m[2]
			} else {
				open = ""
			}
			lines[i] = ""
			continue
		}
		if open != "" {
			lines[i] = ""
		}
	}
	paragraphs := strings.Split(strings.Join(lines, "\n"), "\n\n")
	for i, p := range paragraphs {
		paragraphs[i] = maskSpans(p)
	}
	return strings.Join(paragraphs, "\n\n")
}

// maskSpans blanks the code spans of p: from a run of backticks to the next run
// of the same length, newlines kept.
func maskSpans(p string) string {
	b := []byte(p)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] == '`' {
			j++
		}
		run := j - i
		end := -1
		for k := j; k < len(b); {
			if b[k] != '`' {
				k++
				continue
			}
			e := k
			for e < len(b) && b[e] == '`' {
				e++
			}
			if e-k == run {
				end = e
				break
			}
			k = e
		}
		if end < 0 {
			i = j
			continue
		}
		for k := i; k < end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end
	}
	return string(b)
}

// TestREADMEIsShort keeps the README a page a newcomer reads in five minutes; the
// rest of the manual is in the guides.
func TestREADMEIsShort(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(text), "\n"); n > 300 {
		t.Errorf("README.md has %d lines, over 300: move the detail to a guide in docs/", n)
	}
}
