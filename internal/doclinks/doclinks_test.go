package doclinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository's top directory.
const root = "../.."

// skipped are directories that hold no documents of ours: version control,
// CI's npm packages and run directory.
var skipped = map[string]bool{".git": true, "node_modules": true, "work": true, "testdata": true}

var (
	// markdownLink is [text](target) and ![alt](target).
	markdownLink = regexp.MustCompile(`\[[^\]\n]*\]\(([^)\s]+)\)`)
	// pathMention is a repository path named in prose or a comment:
	// docs/systems/tasks.md, ./cmd/datamodel, examples/jobs.
	pathMention = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.\-/@])(?:\./)?((?:docs|examples|cmd|internal)/[A-Za-z0-9_.\-/]*)`)
	// unopenable names documents a user of the module cannot open: the
	// design notes the systems started from, by number or by file.
	unopenable = regexp.MustCompile(`(?i)\bseeds?\s+(?:and\s+)?0\d\d\b|\bseeds/|\b(?:DESIGN|STYLE|PROTOCOL)\.md\b`)
	// commentPrefix joins a Go comment's lines so a name split over two
	// lines ("seed\n// 003") is still found.
	commentPrefix = regexp.MustCompile(`\n[ \t]*//[ \t]?`)
)

// documents returns the repository's Markdown and Go files.
func documents(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (skipped[d.Name()] || strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".go")) {
			files = append(files, path)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

func rel(path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestMarkdownLinksResolve(t *testing.T) {
	for _, file := range documents(t) {
		if !strings.HasSuffix(file, ".md") {
			continue
		}
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, m := range markdownLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			target, _, _ = strings.Cut(target, "?")
			assert.True(t, exists(filepath.Join(filepath.Dir(file), target)),
				"%s links to %s, which the repository does not contain", rel(file), m[1])
		}
	}
}

func TestNamedPathsExist(t *testing.T) {
	for _, file := range documents(t) {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, path := range mentionedPaths(string(data)) {
			// From the top, or from the file's own directory (a package
			// naming its internal/ folder).
			found := exists(filepath.Join(root, filepath.FromSlash(path))) ||
				exists(filepath.Join(filepath.Dir(file), filepath.FromSlash(path)))
			assert.True(t, found, "%s names %s, which the repository does not contain", rel(file), path)
		}
	}
}

// mentionedPaths are the repository paths text names, without the
// sentence's closing punctuation; a bare "docs/" names nothing to check.
func mentionedPaths(text string) []string {
	var paths []string
	for _, m := range pathMention.FindAllStringSubmatch(text, -1) {
		path := strings.TrimRight(m[1], "./-")
		if strings.Contains(path, "/") {
			paths = append(paths, path)
		}
	}
	return paths
}

func TestNothingCitesDocumentsUsersCannotOpen(t *testing.T) {
	for _, file := range documents(t) {
		if rel(filepath.Dir(file)) == "internal/doclinks" {
			continue // this test names what it looks for
		}
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		text := commentPrefix.ReplaceAllString(string(data), " ")
		for _, m := range unopenable.FindAllString(text, -1) {
			assert.Fail(t, "unopenable reference",
				"%s cites %q: name the system's document under docs/systems/ instead", rel(file), m)
		}
	}
}

// The patterns catch what they are for: a test that passes on anything is
// no test.
func TestThePatternsFindWhatTheyLookFor(t *testing.T) {
	assert.True(t, unopenable.MatchString("as seed 003 says"))
	assert.True(t, unopenable.MatchString(commentPrefix.ReplaceAllString("as seed\n// 003's rate", " ")))
	assert.True(t, unopenable.MatchString("seeds 000 and 004 keep logs"))
	assert.True(t, unopenable.MatchString("see DESIGN.md"))
	assert.False(t, unopenable.MatchString("the seed's layout (docs/systems/tasks.md)"))
	assert.Equal(t, []string{"docs/systems/tasks.md"}, mentionedPaths("see docs/systems/tasks.md."))
	assert.Equal(t, []string{"cmd/datamodel"}, mentionedPaths("go run ./cmd/datamodel"))
	assert.Empty(t, mentionedPaths("github.com/aws/aws-sdk-go-v2/internal/ini, docs/ and cmd/"))
	assert.Equal(t, "../tasks/x.md", markdownLink.FindStringSubmatch("[x](../tasks/x.md)")[1])
}
