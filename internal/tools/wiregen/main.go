// Command wiregen writes the wire codec of package api: for every source file
// declaring structs with `wire:"N"` field tags it writes <file>_wire.go with
// SizeWire, AppendWire and UnmarshalWire methods in the protobuf wire format.
//
// It also keeps the package's schema lock (schema.lock, see
// internal/wireschema): it refuses to generate when the source retypes or
// reuses a field number, or drops one without a `// reserved: N` comment,
// and otherwise rewrites the lock with what was added; and it writes
// schema_wire.go, the table api.UnknownFields walks.
//
// Usage (from go generate in the package directory): wiregen -dir .
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/wireschema"
)

func main() {
	dir := flag.String("dir", ".", "package directory")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "wiregen:", err)
		os.Exit(1)
	}
}

type kind int

const (
	kString kind = iota
	kBytes
	kBool
	kInt32
	kInt64
	kUint32
	kUint64
	kFloat64
	kMessage
)

type field struct {
	name     string
	num      int
	kind     kind
	repeated bool
	typeName string // Go type for conversions (enum names, message names)
}

type message struct {
	name   string
	fields []field
}

func run(dir string) error {
	sch, err := lockSchema(dir)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		n := fi.Name()
		return strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !strings.HasSuffix(n, "_wire.go")
	}, parser.ParseComments)
	if err != nil {
		return err
	}
	if len(pkgs) != 1 {
		return fmt.Errorf("expected one package in %s, found %d", dir, len(pkgs))
	}
	var pkg *ast.Package
	for _, p := range pkgs {
		pkg = p
	}
	// Named integer types (enums) and the set of message types.
	enums := map[string]kind{}
	structs := map[string]*ast.StructType{}
	fileOf := map[string]string{}
	var order []string
	for fname, f := range pkg.Files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				switch t := ts.Type.(type) {
				case *ast.Ident:
					if k, ok := scalarKind(t.Name); ok && k != kString && k != kBool && k != kFloat64 {
						enums[ts.Name.Name] = k
					}
				case *ast.StructType:
					if hasWireTags(t) || len(t.Fields.List) == 0 {
						structs[ts.Name.Name] = t
						fileOf[ts.Name.Name] = fname
						order = append(order, ts.Name.Name)
					}
				}
			}
		}
	}
	byFile := map[string][]*message{}
	for _, name := range order {
		m, err := buildMessage(fset, name, structs[name], structs, enums)
		if err != nil {
			return err
		}
		byFile[fileOf[name]] = append(byFile[fileOf[name]], m)
	}
	var files []string
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, fname := range files {
		msgs := byFile[fname]
		// Keep declaration order within the file.
		sort.SliceStable(msgs, func(i, j int) bool {
			return declPos(fset, structs[msgs[i].name]) < declPos(fset, structs[msgs[j].name])
		})
		src, err := generate(pkg.Name, msgs)
		if err != nil {
			return fmt.Errorf("%s: %w", fname, err)
		}
		out := strings.TrimSuffix(fname, ".go") + "_wire.go"
		if err := os.WriteFile(out, src, 0o644); err != nil {
			return err
		}
	}
	tbl, err := genSchemaTable(pkg.Name, sch)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, schemaTableFile), tbl, 0o644); err != nil {
		return err
	}
	return cleanStale(dir, files)
}

// schemaTableFile is the generated table of the schema.
const schemaTableFile = "schema_wire.go"

// lockSchema derives the schema, checks it against dir/schema.lock and
// rewrites the lock.
func lockSchema(dir string) (*wireschema.Schema, error) {
	sch, err := wireschema.FromSource(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "schema.lock")
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		locked, err := wireschema.Parse(old)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if errs := wireschema.Check(locked, sch); len(errs) > 0 {
			var b strings.Builder
			for _, e := range errs {
				b.WriteString("\n\t" + e.Error())
			}
			return nil, fmt.Errorf("incompatible schema change (nothing generated):%s", b.String())
		}
	case !os.IsNotExist(err):
		return nil, err
	}
	if out := wireschema.Format(sch); !bytes.Equal(out, old) {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return nil, err
		}
	}
	return sch, nil
}

// genSchemaTable writes the schema as a static table (no package
// initialisation): per message, sorted by name, its field numbers and the
// index of the message each nested field holds (-1 for scalars).
func genSchemaTable(pkg string, sch *wireschema.Schema) ([]byte, error) {
	idx := map[string]int{}
	for i, m := range sch.Messages {
		idx[m.Name] = i
	}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("// Code generated by wiregen. DO NOT EDIT.")
	p("")
	p("package %s", pkg)
	p("")
	p("// wireSchema is every message's field numbers, sorted, with the index")
	p("// of the message a nested field holds (-1: a scalar).")
	p("var wireSchema = [...]schemaMessage{")
	for _, m := range sch.Messages {
		var fs []string
		for _, f := range m.Fields {
			n := -1
			if f.Message != "" {
				n = idx[f.Message]
			}
			fs = append(fs, fmt.Sprintf("{%d, %d}", f.Num, n))
		}
		p("{%q, []schemaField{%s}},", m.Name, strings.Join(fs, ", "))
	}
	p("}")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the schema table: %w", err)
	}
	return src, nil
}

// cleanStale removes *_wire.go files whose source no longer declares messages.
func cleanStale(dir string, sources []string) error {
	keep := map[string]bool{schemaTableFile: true}
	for _, s := range sources {
		keep[filepath.Base(strings.TrimSuffix(s, ".go")+"_wire.go")] = true
	}
	gen, _ := filepath.Glob(filepath.Join(dir, "*_wire.go"))
	for _, g := range gen {
		if !keep[filepath.Base(g)] {
			if b, err := os.ReadFile(g); err == nil && bytes.Contains(b, []byte("Code generated by wiregen")) {
				if err := os.Remove(g); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func declPos(fset *token.FileSet, s *ast.StructType) int { return fset.Position(s.Pos()).Offset }

func hasWireTags(t *ast.StructType) bool {
	for _, f := range t.Fields.List {
		if f.Tag != nil && strings.Contains(f.Tag.Value, `wire:"`) {
			return true
		}
	}
	return false
}

func scalarKind(name string) (kind, bool) {
	switch name {
	case "string":
		return kString, true
	case "bool":
		return kBool, true
	case "int32":
		return kInt32, true
	case "int64":
		return kInt64, true
	case "uint32":
		return kUint32, true
	case "uint64":
		return kUint64, true
	case "float64":
		return kFloat64, true
	}
	return 0, false
}

func buildMessage(fset *token.FileSet, name string, st *ast.StructType, structs map[string]*ast.StructType, enums map[string]kind) (*message, error) {
	m := &message{name: name}
	seen := map[int]string{}
	for _, f := range st.Fields.List {
		if f.Tag == nil {
			return nil, fmt.Errorf("%s: %s.%s has no wire tag", fset.Position(f.Pos()), name, f.Names[0].Name)
		}
		tag, _ := strconv.Unquote(f.Tag.Value)
		numStr := reflect.StructTag(tag).Get("wire")
		num, err := strconv.Atoi(numStr)
		if err != nil || num <= 0 || num > 1<<29-1 {
			return nil, fmt.Errorf("%s: %s: bad wire tag %q", fset.Position(f.Pos()), name, numStr)
		}
		for _, id := range f.Names {
			if prev, dup := seen[num]; dup {
				return nil, fmt.Errorf("%s: %s: field number %d used by %s and %s", fset.Position(f.Pos()), name, num, prev, id.Name)
			}
			seen[num] = id.Name
			fd := field{name: id.Name, num: num}
			if err := classify(&fd, f.Type, structs, enums); err != nil {
				return nil, fmt.Errorf("%s: %s.%s: %w", fset.Position(f.Pos()), name, id.Name, err)
			}
			m.fields = append(m.fields, fd)
		}
	}
	return m, nil
}

func classify(fd *field, t ast.Expr, structs map[string]*ast.StructType, enums map[string]kind) error {
	switch x := t.(type) {
	case *ast.Ident:
		if k, ok := scalarKind(x.Name); ok {
			fd.kind = k
			return nil
		}
		if k, ok := enums[x.Name]; ok {
			fd.kind, fd.typeName = k, x.Name
			return nil
		}
		return fmt.Errorf("unsupported type %s (messages must be pointers)", x.Name)
	case *ast.StarExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok || structs[id.Name] == nil {
			return fmt.Errorf("unsupported pointer type")
		}
		fd.kind, fd.typeName = kMessage, id.Name
		return nil
	case *ast.ArrayType:
		if x.Len != nil {
			return fmt.Errorf("arrays are not supported")
		}
		if id, ok := x.Elt.(*ast.Ident); ok && id.Name == "byte" {
			fd.kind = kBytes
			return nil
		}
		fd.repeated = true
		if err := classify(fd, x.Elt, structs, enums); err != nil {
			return err
		}
		if fd.kind == kBytes {
			return fmt.Errorf("repeated bytes are not supported")
		}
		return nil
	}
	return fmt.Errorf("unsupported field type")
}

func (f field) wireType() string {
	switch f.kind {
	case kFloat64:
		return "wire.Fixed64Type"
	case kString, kBytes, kMessage:
		return "wire.BytesType"
	}
	return "wire.VarintType"
}

// toU64 is the expression encoding scalar v as a varint value.
func (f field) toU64(v string) string {
	switch f.kind {
	case kBool:
		return "wire.BoolVarint(" + v + ")"
	case kInt32, kInt64:
		return "uint64(int64(" + v + "))"
	}
	return "uint64(" + v + ")"
}

// fromU64 converts decoded varint x to the field's Go type.
func (f field) fromU64(x string) string {
	if f.kind == kBool {
		return "wire.Bool(" + x + ")"
	}
	goType := f.typeName
	if goType == "" {
		goType = map[kind]string{kInt32: "int32", kInt64: "int64", kUint32: "uint32", kUint64: "uint64"}[f.kind]
	}
	return goType + "(" + x + ")"
}

func (f field) zeroCheck(v string) string {
	switch f.kind {
	case kString:
		return v + ` != ""`
	case kBytes:
		return "len(" + v + ") > 0"
	case kBool:
		return v
	case kMessage:
		return v + " != nil"
	}
	return v + " != 0"
}

func generate(pkg string, msgs []*message) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("// Code generated by wiregen. DO NOT EDIT.")
	p("")
	p("package %s", pkg)
	p("")
	p(`import "github.com/basalt-lsf/basalt/api/wire"`)
	p("")
	p("var _ = wire.VarintType")
	for _, m := range msgs {
		genSize(p, m)
		genAppend(p, m)
		genUnmarshal(p, m)
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting generated code: %w\n%s", err, b.Bytes())
	}
	return src, nil
}

func genSize(p func(string, ...any), m *message) {
	p("")
	p("// SizeWire returns the encoded size of m.")
	p("func (m *%s) SizeWire() int {", m.name)
	p("if m == nil { return 0 }")
	p("n := 0")
	for _, f := range m.fields {
		v := "m." + f.name
		tag := fmt.Sprintf("%d", sizeTag(f.num))
		switch {
		case f.repeated && f.kind == kMessage:
			p("for _, x := range %s { n += %s + wire.SizeBytes(x.SizeWire()) }", v, tag)
		case f.repeated && f.kind == kString:
			p("for _, x := range %s { n += %s + wire.SizeBytes(len(x)) }", v, tag)
		case f.repeated && f.kind == kFloat64:
			p("if len(%s) > 0 { n += %s + wire.SizeBytes(8*len(%s)) }", v, tag, v)
		case f.repeated:
			p("if len(%s) > 0 { s := 0; for _, x := range %s { s += wire.SizeVarint(%s) }; n += %s + wire.SizeBytes(s) }", v, v, f.toU64("x"), tag)
		case f.kind == kMessage:
			p("if %s != nil { n += %s + wire.SizeBytes(%s.SizeWire()) }", v, tag, v)
		case f.kind == kString, f.kind == kBytes:
			p("if %s { n += %s + wire.SizeBytes(len(%s)) }", f.zeroCheck(v), tag, v)
		case f.kind == kFloat64:
			p("if %s { n += %s + 8 }", f.zeroCheck(v), tag)
		case f.kind == kBool:
			p("if %s { n += %s + 1 }", v, tag)
		default:
			p("if %s { n += %s + wire.SizeVarint(%s) }", f.zeroCheck(v), tag, f.toU64(v))
		}
	}
	p("return n")
	p("}")
}

func sizeTag(num int) int {
	v := uint64(num) << 3
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func genAppend(p func(string, ...any), m *message) {
	p("")
	p("// AppendWire appends the encoding of m to b.")
	p("func (m *%s) AppendWire(b []byte) []byte {", m.name)
	p("if m == nil { return b }")
	for _, f := range m.fields {
		v := "m." + f.name
		tag := fmt.Sprintf("b = wire.AppendTag(b, %d, %s)", f.num, f.wireType())
		bytesTag := fmt.Sprintf("b = wire.AppendTag(b, %d, wire.BytesType)", f.num)
		switch {
		case f.repeated && f.kind == kMessage:
			p("for _, x := range %s { %s; b = wire.AppendVarint(b, uint64(x.SizeWire())); b = x.AppendWire(b) }", v, tag)
		case f.repeated && f.kind == kString:
			p("for _, x := range %s { %s; b = wire.AppendString(b, x) }", v, tag)
		case f.repeated && f.kind == kFloat64:
			p("if len(%s) > 0 { %s; b = wire.AppendVarint(b, uint64(8*len(%s))); for _, x := range %s { b = wire.AppendDouble(b, x) } }", v, bytesTag, v, v)
		case f.repeated:
			p("if len(%s) > 0 { %s; s := 0; for _, x := range %s { s += wire.SizeVarint(%s) }; b = wire.AppendVarint(b, uint64(s)); for _, x := range %s { b = wire.AppendVarint(b, %s) } }",
				v, bytesTag, v, f.toU64("x"), v, f.toU64("x"))
		case f.kind == kMessage:
			p("if %s != nil { %s; b = wire.AppendVarint(b, uint64(%s.SizeWire())); b = %s.AppendWire(b) }", v, tag, v, v)
		case f.kind == kString:
			p("if %s { %s; b = wire.AppendString(b, %s) }", f.zeroCheck(v), tag, v)
		case f.kind == kBytes:
			p("if %s { %s; b = wire.AppendBytes(b, %s) }", f.zeroCheck(v), tag, v)
		case f.kind == kFloat64:
			p("if %s { %s; b = wire.AppendDouble(b, %s) }", f.zeroCheck(v), tag, v)
		default:
			p("if %s { %s; b = wire.AppendVarint(b, %s) }", f.zeroCheck(v), tag, f.toU64(v))
		}
	}
	p("return b")
	p("}")
}

func genUnmarshal(p func(string, ...any), m *message) {
	p("")
	p("// UnmarshalWire decodes b into m, replacing its contents. Unknown fields")
	p("// are skipped.")
	p("func (m *%s) UnmarshalWire(b []byte) error {", m.name)
	p("*m = %s{}", m.name)
	p("for off := 0; off < len(b); {")
	p("num, typ, n := wire.ConsumeTag(b[off:])")
	p("if n < 0 { return wire.Errorf(%q, 0, off, n) }", m.name)
	p("start := off")
	p("off += n")
	p("_ = start")
	p("switch num {")
	for _, f := range m.fields {
		p("case %d:", f.num)
		v := "m." + f.name
		errf := fmt.Sprintf("wire.Errorf(%q, %d, off, n)", m.name, f.num)
		typeErr := fmt.Sprintf("return wire.TypeError(%q, %d, start, typ)", m.name, f.num)
		switch {
		case f.kind == kMessage:
			p("if typ != wire.BytesType { %s }", typeErr)
			p("v, n := wire.ConsumeBytes(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("x := new(%s)", f.typeName)
			p("if err := x.UnmarshalWire(v); err != nil { return wire.NestedError(%q, %d, off, err) }", m.name, f.num)
			if f.repeated {
				p("%s = append(%s, x)", v, v)
			} else {
				p("%s = x", v)
			}
			p("off += n")
		case f.kind == kString:
			p("if typ != wire.BytesType { %s }", typeErr)
			p("v, n := wire.ConsumeBytes(b[off:])")
			p("if n < 0 { return %s }", errf)
			if f.repeated {
				p("%s = append(%s, string(v))", v, v)
			} else {
				p("%s = string(v)", v)
			}
			p("off += n")
		case f.kind == kBytes:
			p("if typ != wire.BytesType { %s }", typeErr)
			p("v, n := wire.ConsumeBytes(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("%s = append([]byte(nil), v...)", v)
			p("off += n")
		case f.kind == kFloat64 && f.repeated:
			p("switch typ {")
			p("case wire.BytesType:")
			p("v, n := wire.ConsumeBytes(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("if len(v)%%8 != 0 { return wire.Errorf(%q, %d, off, -1) }", m.name, f.num)
			p("for len(v) > 0 { x, _ := wire.ConsumeDouble(v); %s = append(%s, x); v = v[8:] }", v, v)
			p("off += n")
			p("case wire.Fixed64Type:")
			p("x, n := wire.ConsumeDouble(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("%s = append(%s, x)", v, v)
			p("off += n")
			p("default: %s", typeErr)
			p("}")
		case f.kind == kFloat64:
			p("if typ != wire.Fixed64Type { %s }", typeErr)
			p("x, n := wire.ConsumeDouble(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("%s = x", v)
			p("off += n")
		case f.repeated:
			p("switch typ {")
			p("case wire.BytesType:")
			p("v, n := wire.ConsumeBytes(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("for len(v) > 0 { x, k := wire.ConsumeVarint(v); if k < 0 { return wire.Errorf(%q, %d, off, k) }; %s = append(%s, %s); v = v[k:] }", m.name, f.num, v, v, f.fromU64("x"))
			p("off += n")
			p("case wire.VarintType:")
			p("x, n := wire.ConsumeVarint(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("%s = append(%s, %s)", v, v, f.fromU64("x"))
			p("off += n")
			p("default: %s", typeErr)
			p("}")
		default:
			p("if typ != wire.VarintType { %s }", typeErr)
			p("x, n := wire.ConsumeVarint(b[off:])")
			p("if n < 0 { return %s }", errf)
			p("%s = %s", v, f.fromU64("x"))
			p("off += n")
		}
	}
	p("default:")
	p("n := wire.ConsumeFieldValue(typ, b[off:])")
	p("if n < 0 { return wire.Errorf(%q, num, off, n) }", m.name)
	p("off += n")
	p("}")
	p("}")
	p("return nil")
	p("}")
}
