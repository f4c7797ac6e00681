package markdown

import (
	"strings"

	"github.com/quire-dev/quire/internal/blocks"
)

// fenceLanguage is the info string for a code block's language: the language with spaces as
// hyphens ("visual basic" → visual-basic), nothing for plain text.
func fenceLanguage(lang string) string {
	if lang == "" || lang == "plain text" {
		return ""
	}
	return strings.ReplaceAll(lang, " ", "-")
}

// aliases map common fence names to Notion's languages.
var aliases = map[string]string{
	"js": "javascript", "jsx": "javascript", "node": "javascript", "ts": "typescript", "tsx": "typescript",
	"py": "python", "python3": "python", "rb": "ruby", "rs": "rust", "golang": "go", "sh": "shell",
	"zsh": "shell", "console": "shell", "shell-session": "shell", "yml": "yaml", "md": "markdown",
	"cpp": "c++", "cxx": "c++", "hpp": "c++", "cc": "c++", "cs": "c#", "csharp": "c#", "fs": "f#",
	"fsharp": "f#", "kt": "kotlin", "kts": "kotlin", "dockerfile": "docker", "tex": "latex",
	"objc": "objective-c", "objectivec": "objective-c", "ps1": "powershell", "pwsh": "powershell",
	"proto": "protobuf", "make": "makefile", "mk": "makefile", "wasm": "webassembly",
	"text": "plain text", "txt": "plain text", "plaintext": "plain text", "plain": "plain text",
	"htm": "html", "svg": "xml", "hs": "haskell", "ex": "elixir", "exs": "elixir", "erl": "erlang",
	"clj": "clojure", "coffee": "coffeescript", "pl": "perl", "ml": "ocaml", "vb": "visual basic",
	"patch": "diff", "tf": "hcl", "sol": "solidity", "jl": "julia", "scm": "scheme", "rkt": "racket",
}

// fenceToLanguage maps an info string's first word back to a language; unknown names become
// plain text, since a code block only accepts Notion's list.
func fenceToLanguage(info string) string {
	tok := strings.ToLower(info)
	if i := strings.IndexAny(tok, " \t{"); i >= 0 {
		tok = tok[:i]
	}
	switch {
	case tok == "":
		return "plain text"
	case blocks.ValidLanguage(tok):
		return tok
	case blocks.ValidLanguage(strings.ReplaceAll(tok, "-", " ")):
		return strings.ReplaceAll(tok, "-", " ")
	}
	if l, ok := aliases[tok]; ok {
		return l
	}
	return "plain text"
}
