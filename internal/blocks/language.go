package blocks

// Languages are the code block languages Notion accepts (its current list, as its validation
// errors name it); anything else is invalid_value.
var Languages = []string{
	"abap", "abc", "agda", "arduino", "ascii art", "assembly", "bash", "basic", "bnf", "c", "c#",
	"c++", "clojure", "coffeescript", "coq", "css", "dart", "dhall", "diff", "docker", "ebnf",
	"elixir", "elm", "erlang", "f#", "flow", "fortran", "gherkin", "glsl", "go", "graphql",
	"groovy", "haskell", "hcl", "html", "idris", "java", "javascript", "json", "julia", "kotlin",
	"latex", "less", "lisp", "livescript", "llvm ir", "lua", "makefile", "markdown", "markup",
	"matlab", "mathematica", "mermaid", "nix", "notion formula", "objective-c", "ocaml", "pascal",
	"perl", "php", "plain text", "powershell", "prolog", "protobuf", "purescript", "python", "r",
	"racket", "reason", "ruby", "rust", "sass", "scala", "scheme", "scss", "shell", "smalltalk",
	"solidity", "sql", "swift", "toml", "typescript", "vb.net", "verilog", "vhdl",
	"visual basic", "webassembly", "xml", "yaml", "java/c/c++/c#",
}

var languages = set(Languages...)

// ValidLanguage reports whether l is a code language ("" counts as "plain text").
func ValidLanguage(l string) bool { return l == "" || languages[l] }
