package doclinks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// symbols are the module's exported Go names, per package name: top-level
// names ("Work", "ErrDrift") and members of its types ("Options.Retention",
// "Store.NewWorker", "Job.Lease": methods and struct fields).
type symbols map[string]map[string]bool

// moduleSymbols reads every non-test Go file of the module (examples,
// commands and internal packages left out: the documents cite the
// library's API).
func moduleSymbols(t *testing.T) symbols {
	t.Helper()
	syms := symbols{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path == root:
			case skipped[name], strings.HasPrefix(name, "."), name == "testdata", name == "examples", name == "cmd", name == "internal":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := f.Name.Name
		if syms[pkg] == nil {
			syms[pkg] = map[string]bool{}
		}
		add := func(name string) {
			if ast.IsExported(name[strings.LastIndex(name, ".")+1:]) {
				syms[pkg][name] = true
			}
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					add(decl.Name.Name)
					continue
				}
				if recv := receiverType(decl.Recv.List[0].Type); recv != "" {
					add(recv + "." + decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							add(n.Name)
						}
					case *ast.TypeSpec:
						add(spec.Name.Name)
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								for _, n := range field.Names {
									add(spec.Name.Name + "." + n.Name)
								}
							}
						}
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	return syms
}

// receiverType is the name of a method's receiver type: T for T, *T,
// T[K] and *T[K].
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// has reports whether name is declared in pkg. A single name is also found as a member of any of the package's
// types: the documents cite methods bare (`Sweep`, `History`) where the
// type is plain from the text.
func (s symbols) has(pkg, name string) bool {
	in := func(names map[string]bool) bool {
		if names[name] {
			return true
		}
		if strings.Contains(name, ".") {
			return false
		}
		for n := range names {
			if strings.HasSuffix(n, "."+name) {
				return true
			}
		}
		return false
	}
	return in(s[pkg])
}

var (
	// codeSpan is one `code span` of a Markdown line.
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// goName is a Go name as the documents cite one: Name, pkg.Name,
	// Type.Member or pkg.Type.Member, with or without a call's arguments.
	goName = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})(?:\(.*\))?$`)
	// homePackages is a system document's title: "(package `jobs`)",
	// "(packages `datamodel`, `access`, `iam`; `cmd/datamodel`)".
	homePackages = regexp.MustCompile("\\(packages? ([^)]*)\\)")
	// lowerCase tells a Go name (Sweep) from a value or key (QUEUED, GSI1).
	lowerCase = regexp.MustCompile("[a-z]")
)

// notGoNames are code spans of the system documents that name DynamoDB
// tables and attributes, not Go: they read like exported names.
var notGoNames = map[string]bool{
	"TransformationSystem": true, // journey's table
	"EntityType":           true, // journey's item attributes
	"CreatedAt":            true,
	"UpdatedAt":            true,
	"Data":                 true,
}

// citedNames are the Go names a document cites that this test can check:
// pkg.Name (pkg one of the module's packages), Type.Member, and exported
// single names with a lower-case letter (QUEUED, PK and GSI1 are values
// and keys, not Go). Other spans (file names, attribute paths such as
// error.stack, expressions) are left alone.
func citedNames(text string, syms symbols) (pkgs []string, names [][2]string) {
	if m := homePackages.FindStringSubmatch(text); m != nil {
		for _, p := range codeSpan.FindAllStringSubmatch(m[1], -1) {
			pkgs = append(pkgs, p[1][strings.LastIndex(p[1], "/")+1:])
		}
	}
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		g := goName.FindStringSubmatch(m[1])
		if g == nil || notGoNames[g[1]] {
			continue
		}
		parts := strings.Split(g[1], ".")
		switch first := parts[0]; {
		case syms[first] != nil && len(parts) > 1:
			names = append(names, [2]string{first, strings.Join(parts[1:], ".")})
		case !ast.IsExported(first), !lowerCase.MatchString(first):
		case len(parts) <= 2:
			names = append(names, [2]string{"", g[1]})
		}
	}
	return pkgs, names
}

// The system documents (and the README, docs/costs.md and the data-model
// documents) cite the API by name
// (`jobs.Work`, `Options.StagesInAnyOrder`, `ErrStageOrder`): every such
// name must be declared, so a rename or a removal that leaves a document
// behind fails here rather than misleading a reader.
func TestDocumentsCiteNamesTheCodeDeclares(t *testing.T) {
	syms := moduleSymbols(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "systems", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	// The README, docs/README.md, docs/costs.md and the generated data-model
	// documents cite names with their packages (`connect.Open`,
	// `tasks.ProductionProvisioning()`); they have no package of their own
	// to read a bare name in.
	qualifiedOnly := map[string]bool{}
	for _, pattern := range []string{"README.md", "docs/*.md", "docs/*/dynamodb_*.md"} {
		more, err := filepath.Glob(filepath.Join(root, pattern))
		require.NoError(t, err)
		require.NotEmpty(t, more, pattern)
		for _, doc := range more {
			qualifiedOnly[doc] = true
			docs = append(docs, doc)
		}
	}
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		pkgs, names := citedNames(string(b), syms)
		for _, n := range names {
			if qualifiedOnly[doc] && n[0] == "" {
				continue
			}
			checked++
			// A name without its package is the document's own packages'
			// (another package's is cited with its package: `table.ErrDrift`).
			found := n[0] != "" && syms.has(n[0], n[1])
			for _, p := range pkgs {
				found = found || n[0] == "" && syms.has(p, n[1])
			}
			where, cited := strings.Join(pkgs, ", "), n[1]
			if n[0] != "" {
				where, cited = n[0], n[0]+"."+n[1]
			}
			assert.True(t, found, "%s cites `%s`, which package %s does not declare", rel(doc), cited, where)
		}
	}
	t.Logf("%d names cited", checked)
	assert.Greater(t, checked, 50, "the documents' names were found")
}

func TestCitedNamesPicksGoNamesOnly(t *testing.T) {
	syms := symbols{"jobs": {"Work": true}, "table": {"ErrDrift": true}}
	pkgs, names := citedNames("# Jobs (package `jobs`)\n"+
		"`jobs.Work(tasksTable)` `table.ErrDrift` `Options.Retention` `Sweep` `DryRun()` "+
		"`QUEUED` `GSI1` `error.stack` `backup.json` `PK = JOURNEY#<id>` `EntityType`", syms)
	assert.Equal(t, []string{"jobs"}, pkgs)
	assert.Equal(t, [][2]string{{"jobs", "Work"}, {"table", "ErrDrift"}, {"", "Options.Retention"}, {"", "Sweep"}, {"", "DryRun"}}, names)

	all := symbols{"jobs": {"Work": true, "Options.Retention": true}, "entity": {"Options.TTL": true}}
	assert.True(t, all.has("jobs", "Options.Retention"))
	assert.True(t, all.has("jobs", "Retention"), "a member cited bare")
	assert.False(t, all.has("jobs", "Options.TTL"), "a renamed field is not found, though another package has one")
	assert.False(t, all.has("jobs", "TTL"))
}
