package infra

import (
	"strconv"
	"strings"
)

// hclBody is an HCL body: attributes and blocks, written in the order added, laid
// out as terraform fmt lays them out.
type hclBody struct {
	items []hclItem
}

// hclItem is an attribute (name = expr) or, when block is set, a nested block.
type hclItem struct {
	name  string
	expr  string
	block *hclBlock
}

type hclBlock struct {
	typ    string
	labels []string
	body   hclBody
}

// attr adds the attribute name = expr; expr is an HCL expression, such as the
// result of hclString.
func (b *hclBody) attr(name, expr string) {
	b.items = append(b.items, hclItem{name: name, expr: expr})
}

// block adds a nested block and returns its body.
func (b *hclBody) block(typ string, labels ...string) *hclBody {
	blk := &hclBlock{typ: typ, labels: labels}
	b.items = append(b.items, hclItem{block: blk})
	return &blk.body
}

// write writes the body's items at depth levels of two-space indentation. A blank
// line separates blocks from each other and from attributes; within a run of
// attributes, the equals signs line up, as terraform fmt aligns them.
func (b *hclBody) write(w *strings.Builder, depth int) {
	indent := strings.Repeat("  ", depth)
	for i := 0; i < len(b.items); {
		if i > 0 {
			w.WriteString("\n")
		}
		if blk := b.items[i].block; blk != nil {
			blk.write(w, depth)
			i++
			continue
		}
		end := i
		width := 0
		for ; end < len(b.items) && b.items[end].block == nil; end++ {
			width = max(width, len(b.items[end].name))
		}
		for _, it := range b.items[i:end] {
			w.WriteString(indent + it.name + strings.Repeat(" ", width-len(it.name)) + " = " + it.expr + "\n")
		}
		i = end
	}
}

func (blk *hclBlock) write(w *strings.Builder, depth int) {
	indent := strings.Repeat("  ", depth)
	w.WriteString(indent + blk.typ)
	for _, l := range blk.labels {
		w.WriteString(" " + hclString(l))
	}
	w.WriteString(" {\n")
	blk.body.write(w, depth+1)
	w.WriteString(indent + "}\n")
}

// hclString quotes s as an HCL string literal. Besides what Go escapes, HCL reads
// "${" and "%{" as the start of a template, so they are doubled.
func hclString(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, "${", "$${")
	return strings.ReplaceAll(q, "%{", "%%{")
}

func hclBool(v bool) string { return strconv.FormatBool(v) }

func hclInt(n int64) string { return strconv.FormatInt(n, 10) }

// hclStrings returns a list of string literals, such as ["a", "b"].
func hclStrings(ss []string) string {
	quoted := make([]string, len(ss))
	for i, s := range ss {
		quoted[i] = hclString(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
