package wireschema

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Schema is a package's wire schema.
type Schema struct {
	Messages []*Message // sorted by name
}

// Message is one struct with wire tags.
type Message struct {
	Name     string
	Fields   []Field // sorted by number
	Reserved []int   // sorted
}

// Field is one field of a message.
type Field struct {
	Name string
	Num  int
	// Type is the Go type as written, with a named scalar's underlying
	// type: "int64", "[]*ExecHost", "JobState(int32)".
	Type string
	// Message is the message a nested field holds ("" for scalars).
	Message string
}

// Lookup returns the message called name, or nil.
func (s *Schema) Lookup(name string) *Message {
	i := sort.Search(len(s.Messages), func(i int) bool { return s.Messages[i].Name >= name })
	if i < len(s.Messages) && s.Messages[i].Name == name {
		return s.Messages[i]
	}
	return nil
}

// Field returns the field numbered num, or nil.
func (m *Message) Field(num int) *Field {
	i := sort.Search(len(m.Fields), func(i int) bool { return m.Fields[i].Num >= num })
	if i < len(m.Fields) && m.Fields[i].Num == num {
		return &m.Fields[i]
	}
	return nil
}

// IsReserved reports whether num is reserved in m.
func (m *Message) IsReserved(num int) bool {
	i := sort.SearchInts(m.Reserved, num)
	return i < len(m.Reserved) && m.Reserved[i] == num
}

func (s *Schema) sort() {
	sort.Slice(s.Messages, func(i, j int) bool { return s.Messages[i].Name < s.Messages[j].Name })
	for _, m := range s.Messages {
		sort.Slice(m.Fields, func(i, j int) bool { return m.Fields[i].Num < m.Fields[j].Num })
		sort.Ints(m.Reserved)
	}
}

var reservedRe = regexp.MustCompile(`^//\s*reserved:\s*(.*)$`)

// parseReserved reads "2 (Spec), 15": numbers, each optionally followed by
// the old field's name in parentheses.
func parseReserved(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if i := strings.IndexByte(part, '('); i >= 0 {
			part = strings.TrimSpace(part[:i])
		}
		n, err := strconv.Atoi(part)
		if err != nil || n <= 0 || n > 1<<29-1 {
			return nil, fmt.Errorf("bad reserved number %q", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// FromSource derives the schema of the Go package in dir from its source
// files (not tests, not generated *_wire.go): every struct with wire tags,
// and every empty struct, is a message.
func FromSource(dir string) (*Schema, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		n := fi.Name()
		return strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !strings.HasSuffix(n, "_wire.go")
	}, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("expected one package in %s, found %d", dir, len(pkgs))
	}
	named := map[string]string{} // named non-struct types: underlying
	type decl struct {
		st   *ast.StructType
		file *ast.File
	}
	structs := map[string]decl{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, sp := range gd.Specs {
					ts := sp.(*ast.TypeSpec)
					switch t := ts.Type.(type) {
					case *ast.Ident:
						named[ts.Name.Name] = t.Name
					case *ast.StructType:
						if ts.TypeParams == nil && (hasWireTags(t) || len(t.Fields.List) == 0) {
							structs[ts.Name.Name] = decl{t, f}
						}
					}
				}
			}
		}
	}
	s := &Schema{}
	for name, d := range structs {
		m := &Message{Name: name}
		seen := map[int]string{}
		for _, f := range d.st.Fields.List {
			if f.Tag == nil || len(f.Names) == 0 {
				return nil, fmt.Errorf("%s: %s: field without a wire tag", fset.Position(f.Pos()), name)
			}
			tag, _ := strconv.Unquote(f.Tag.Value)
			num, err := strconv.Atoi(reflect.StructTag(tag).Get("wire"))
			if err != nil || num <= 0 || num > 1<<29-1 {
				return nil, fmt.Errorf("%s: %s: bad wire tag %s", fset.Position(f.Pos()), name, f.Tag.Value)
			}
			typ := types(f.Type, named)
			nested := ""
			if base := strings.TrimLeft(typ, "[]*"); structs[base].st != nil {
				nested = base
			}
			for _, id := range f.Names {
				if prev, dup := seen[num]; dup {
					return nil, fmt.Errorf("%s: %s: field number %d used by %s and %s", fset.Position(f.Pos()), name, num, prev, id.Name)
				}
				seen[num] = id.Name
				m.Fields = append(m.Fields, Field{Name: id.Name, Num: num, Type: typ, Message: nested})
			}
		}
		// Reserved numbers: comments inside the struct's braces.
		for _, cg := range d.file.Comments {
			if cg.Pos() < d.st.Fields.Opening || cg.End() > d.st.Fields.Closing {
				continue
			}
			for _, c := range cg.List {
				mm := reservedRe.FindStringSubmatch(c.Text)
				if mm == nil {
					continue
				}
				nums, err := parseReserved(mm[1])
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %v", fset.Position(c.Pos()), name, err)
				}
				for _, n := range nums {
					if used, ok := seen[n]; ok {
						return nil, fmt.Errorf("%s: %s: field number %d is reserved but %s uses it", fset.Position(c.Pos()), name, n, used)
					}
					m.Reserved = append(m.Reserved, n)
				}
			}
		}
		s.Messages = append(s.Messages, m)
	}
	s.sort()
	for _, m := range s.Messages {
		for i := 1; i < len(m.Reserved); i++ {
			if m.Reserved[i] == m.Reserved[i-1] {
				return nil, fmt.Errorf("%s: number %d reserved twice", m.Name, m.Reserved[i])
			}
		}
	}
	return s, nil
}

func hasWireTags(t *ast.StructType) bool {
	for _, f := range t.Fields.List {
		if f.Tag != nil && strings.Contains(f.Tag.Value, `wire:"`) {
			return true
		}
	}
	return false
}

// types renders a field's type; a named scalar carries its underlying
// type, so changing it is a change of type.
func types(e ast.Expr, named map[string]string) string {
	switch x := e.(type) {
	case *ast.Ident:
		if u, ok := named[x.Name]; ok {
			return x.Name + "(" + u + ")"
		}
		return x.Name
	case *ast.StarExpr:
		return "*" + types(x.X, named)
	case *ast.ArrayType:
		return "[]" + types(x.Elt, named)
	case *ast.SelectorExpr:
		return types(x.X, named) + "." + x.Sel.Name
	}
	return fmt.Sprintf("%T", e)
}
