package markdown

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/quire-dev/quire/internal/blocks"
)

// TestReadmes: README-like files with the constructs of real projects' READMEs (badges, raw
// HTML logos, <a name> anchors, option tables with | in code, & in prose) export, import and
// export again byte for byte the same, keep their words, and keep their raw HTML as it was.
func TestReadmes(t *testing.T) {
	verbatim := map[string][]string{ // lines each file's export keeps exactly
		"router.md": {
			"[![Build Status](https://ci.example.com/trellis/badge.svg?branch=main&event=push)](https://ci.example.com/trellis)\n",
			"![Trellis Logo](https://cdn.example.com/trellis-logo-64.png)\n",
			"| `Methods(m ...string)` | any | Accept only these methods, e.g. `GET\\|HEAD`. |\n",
			"Package `trellis` is a small request router & dispatcher: ",
			"so do Windows paths (C:\\srv\\www) and e-mail addresses such as <ops@example.com>.",
		},
		"framework.md": {
			"<a href=\"#\">\n\t<picture>\n\t\t<source media=\"(prefers-color-scheme: dark)\" srcset=\"https://assets.example.com/ridge-dark.png\" />\n",
			"\n\nA modern, simple, fast & flexible micro framework",
			"<a name=\"sponsors\"></a>\n\n## Sponsors\n",
			"<a href=\"https://stars.example.com/#ridge&Date\">\n\t<picture>\n",
		},
		"parser.md": {
			"<p align=\"center\">\n  <img src=\"https://assets.example.com/inkwell.png\" alt=\"inkwell\" width=\"240\">\n</p>\n",
			"<!-- The badges above are generated; do not edit them by hand. -->\n",
			"| `parser.WithFilter` | `func(tag string) bool` | Tags `a\\|b` forbidden in HTML blocks & raw HTML. |\n",
		},
		"driver.md": {
			"- `MaxConns` — the most connections open at once\n",
			"experimental1. Each OID's transcoder can be replaced.",
		},
	}
	files, err := filepath.Glob("testdata/readmes/*.md")
	if err != nil || len(files) != len(verbatim) {
		t.Fatalf("fixtures %v, %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tree1 := Parse(src)
			if err := blocks.Validate(tree1, "children", nil, blocks.Limits{}); err != nil {
				t.Fatalf("imported tree does not validate: %v", err)
			}
			md1 := String(tree1)
			tree2 := Parse([]byte(md1))
			if md2 := String(tree2); md2 != md1 {
				t.Fatalf("export → import → export changed the Markdown:\n%s", firstDiff(md1, md2))
			}
			if dump(tree1) != dump(tree2) {
				t.Fatalf("import → export → import changed the tree")
			}
			if kept, lost := wordsKept(string(src), md1); kept < 0.995 {
				t.Errorf("%.2f%% of the words kept; lost %v", 100*kept, lost)
			}
			for _, bad := range []string{`\&`, "&#32;", `\<`, `\_`} {
				if strings.Contains(md1, bad) {
					t.Errorf("export holds %q:\n%s", bad, md1)
				}
			}
			for _, want := range verbatim[filepath.Base(f)] {
				if !strings.Contains(md1, want) {
					t.Errorf("export lacks %q:\n%s", want, md1)
				}
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

var (
	tagPattern    = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9-]*(?:\s[^>]*)?/?>`) // not <https://…> autolinks
	syntaxPattern = regexp.MustCompile("(?m)^(\\s*(?:```+|~~~+)).*$|\\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\\]")
)

// words counts the words of Markdown's text: tags removed (inline ones join what is beside
// them, as a browser shows "x<sup>2</sup>"), character references resolved, runs of letters
// and digits, case folded. A fence's info string and an alert's kind are syntax, not text
// (they come back as the language's name, "sh" as "shell", and as [!NOTE]).
func words(md string) map[string]int {
	s := syntaxPattern.ReplaceAllString(md, "$1")
	s = html.UnescapeString(tagPattern.ReplaceAllString(s, ""))
	out := map[string]int{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[strings.ToLower(w)]++
	}
	return out
}

// wordsKept is the share of src's words (counted with repeats) that the export has, and
// the words it lacks.
func wordsKept(src, export string) (float64, []string) {
	have, got := words(src), words(export)
	total, kept := 0, 0
	var lost []string
	for w, n := range have {
		total += n
		kept += min(n, got[w])
		if got[w] < n {
			lost = append(lost, w)
		}
	}
	sort.Strings(lost)
	return float64(kept) / float64(total), lost
}
