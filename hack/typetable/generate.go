package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Table is the generated data: Go types by import/path.Name.
type Table struct {
	// Root is the type the walk started from.
	Root string `json:"root"`
	// Modules are the module versions the sources were read from.
	Modules map[string]string `json:"modules"`
	// Types holds every named type reachable from Root.
	Types map[string]*Type `json:"types"`
}

// Type is a named Go type.
type Type struct {
	// Name is the type as reflect (and so spew) prints it: v1.Container.
	Name string `json:"name"`
	// Underlying is "struct", "interface", or the type expression of a
	// named type over another type (string, map[K]V, …). Empty for a
	// standard library type, which the table does not look into.
	Underlying string `json:"underlying,omitempty"`
	// Fields are a struct's fields in declaration order.
	Fields []Field `json:"fields,omitempty"`
	// Marshals says the type has its own MarshalJSON or UnmarshalJSON.
	Marshals bool `json:"marshals,omitempty"`
}

// Field is a struct field.
type Field struct {
	Name string `json:"name"`
	// Type is a type expression: builtins by name, named types as
	// import/path.Name, and *T, []T, [N]T, map[K]V over those.
	Type      string `json:"type"`
	JSON      string `json:"json,omitempty"`
	OmitEmpty bool   `json:"omitempty,omitempty"`
	// Inline: the field's JSON is merged into its parent's.
	Inline   bool `json:"inline,omitempty"`
	Embedded bool `json:"embedded,omitempty"`
}

// Marshal encodes t as the committed file holds it.
func (t *Table) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// pkg is one parsed package.
type pkg struct {
	path, name string
	standard   bool
	module     [2]string // path and version; empty for the standard library
	types      map[string]*ast.TypeSpec
	files      map[*ast.TypeSpec]*ast.File
	marshals   map[string]bool
}

type generator struct {
	dir   string // module directory that resolves import paths
	fset  *token.FileSet
	pkgs  map[string]*pkg
	table *Table
	queue []string
}

// Generate walks the types reachable from root ("import/path.Name"),
// resolving packages in the module at dir.
func Generate(dir, root string) (*Table, error) {
	g := &generator{dir: dir, fset: token.NewFileSet(), pkgs: map[string]*pkg{},
		table: &Table{Root: root, Modules: map[string]string{}, Types: map[string]*Type{}}}
	g.queue = []string{root}
	for len(g.queue) > 0 {
		id := g.queue[0]
		g.queue = g.queue[1:]
		if _, done := g.table.Types[id]; done {
			continue
		}
		t, err := g.named(id)
		if err != nil {
			return nil, fmt.Errorf("type %s: %w", id, err)
		}
		g.table.Types[id] = t
	}
	return g.table, nil
}

// named describes the named type id and queues the types it refers to.
func (g *generator) named(id string) (*Type, error) {
	dot := strings.LastIndex(id, ".")
	p, err := g.load(id[:dot])
	if err != nil {
		return nil, err
	}
	name := id[dot+1:]
	t := &Type{Name: p.name + "." + name}
	if p.standard {
		return t, nil
	}
	g.table.Modules[p.module[0]] = p.module[1]
	spec, ok := p.types[name]
	if !ok {
		return nil, fmt.Errorf("not declared in %s", p.path)
	}
	t.Marshals = p.marshals[name]
	imports := g.imports(p.files[spec])
	if spec.Assign.IsValid() {
		return nil, fmt.Errorf("type aliases are not supported")
	}
	switch u := spec.Type.(type) {
	case *ast.StructType:
		t.Underlying = "struct"
		t.Fields, err = g.fields(p, imports, u, t.Marshals || !ast.IsExported(name))
	case *ast.InterfaceType:
		t.Underlying = "interface"
	default:
		t.Underlying, err = g.expr(p, imports, u)
	}
	return t, err
}

// fields lists st's fields. An embedded field without a json tag would
// be named by the v0.31.8 converter and inlined by encoding/json; only a
// type JSON never walks into (opaque: it marshals itself, or it is
// unexported) may have one.
func (g *generator) fields(p *pkg, imports map[string]string, st *ast.StructType, opaque bool) ([]Field, error) {
	var out []Field
	for _, f := range st.Fields.List {
		typ, err := g.expr(p, imports, f.Type)
		if err != nil {
			return nil, err
		}
		tag := ""
		if f.Tag != nil {
			s, _ := strconv.Unquote(f.Tag.Value)
			tag = reflect.StructTag(s).Get("json")
		}
		jsonName, opts, _ := strings.Cut(tag, ",")
		base := Field{Type: typ, JSON: jsonName}
		for _, o := range strings.Split(opts, ",") {
			base.OmitEmpty = base.OmitEmpty || o == "omitempty"
		}
		if len(f.Names) == 0 {
			base.Embedded = true
			base.Name = embeddedName(f.Type)
			base.Inline = jsonName == "" && tag != ""
			if tag == "" && ast.IsExported(base.Name) && !opaque {
				return nil, fmt.Errorf("embedded field %s has no json tag", base.Name)
			}
			out = append(out, base)
			continue
		}
		for _, n := range f.Names {
			fld := base
			fld.Name = n.Name
			out = append(out, fld)
		}
	}
	return out, nil
}

func embeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// builtins are the predeclared types, as reflect names them.
var builtins = map[string]string{
	"bool": "bool", "string": "string", "int": "int", "int8": "int8", "int16": "int16", "int32": "int32",
	"int64": "int64", "uint": "uint", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
	"uint64": "uint64", "uintptr": "uintptr", "float32": "float32", "float64": "float64",
	"byte": "uint8", "rune": "int32",
}

// expr renders a type expression of package p, queueing named types.
func (g *generator) expr(p *pkg, imports map[string]string, e ast.Expr) (string, error) {
	switch x := e.(type) {
	case *ast.Ident:
		if b, ok := builtins[x.Name]; ok {
			return b, nil
		}
		return g.ref(p.path + "." + x.Name), nil
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return "", fmt.Errorf("unexpected selector %T", x.X)
		}
		path, ok := imports[id.Name]
		if !ok {
			return "", fmt.Errorf("package %s is not imported", id.Name)
		}
		return g.ref(path + "." + x.Sel.Name), nil
	case *ast.StarExpr:
		s, err := g.expr(p, imports, x.X)
		return "*" + s, err
	case *ast.ArrayType:
		s, err := g.expr(p, imports, x.Elt)
		if x.Len == nil {
			return "[]" + s, err
		}
		n, ok := x.Len.(*ast.BasicLit)
		if !ok {
			return "", fmt.Errorf("array length is not a literal")
		}
		return "[" + n.Value + "]" + s, err
	case *ast.MapType:
		k, err := g.expr(p, imports, x.Key)
		if err != nil {
			return "", err
		}
		v, err := g.expr(p, imports, x.Value)
		return "map[" + k + "]" + v, err
	case *ast.InterfaceType:
		if len(x.Methods.List) == 0 {
			return "interface {}", nil
		}
	}
	return "", fmt.Errorf("unsupported type expression %T", e)
}

func (g *generator) ref(id string) string {
	if _, done := g.table.Types[id]; !done {
		g.queue = append(g.queue, id)
	}
	return id
}

// imports maps a file's import names to paths.
func (g *generator) imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if im.Name != nil {
			out[im.Name.Name] = path
			continue
		}
		if p, err := g.load(path); err == nil {
			out[p.name] = path
		}
	}
	return out
}

// load lists and parses the package at path once.
func (g *generator) load(path string) (*pkg, error) {
	if p, ok := g.pkgs[path]; ok {
		return p, nil
	}
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}\t{{.Name}}\t{{.Standard}}\t{{with .Module}}{{.Path}}\t{{.Version}}{{end}}", path)
	cmd.Dir = g.dir
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", path, err)
	}
	parts := strings.Split(strings.TrimSpace(string(outb)), "\t")
	p := &pkg{path: path, name: parts[1], standard: parts[2] == "true",
		types: map[string]*ast.TypeSpec{}, files: map[*ast.TypeSpec]*ast.File{}, marshals: map[string]bool{}}
	g.pkgs[path] = p
	if len(parts) == 5 {
		p.module = [2]string{parts[3], parts[4]}
	}
	if p.standard {
		return p, nil
	}
	return p, g.parse(p, parts[0])
}

func (g *generator) parse(p *pkg, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			if ok, err := build.Default.MatchFile(dir, n); err == nil && ok {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	for _, n := range names {
		f, err := parser.ParseFile(g.fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						p.types[ts.Name.Name] = ts
						p.files[ts] = f
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && (d.Name.Name == "MarshalJSON" || d.Name.Name == "UnmarshalJSON") {
					p.marshals[embeddedName(d.Recv.List[0].Type)] = true
				}
			}
		}
	}
	return nil
}
