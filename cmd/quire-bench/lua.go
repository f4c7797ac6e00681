package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// luaScript is a wrk script that sends reqs, each request picked at random, with the bearer
// token. wrk runs one Lua state per thread: setup numbers the threads so that each seeds its
// own random sequence, and init formats every request once.
func luaScript(reqs []request, token string) string {
	var sb strings.Builder
	sb.WriteString("local raw = {\n")
	for _, r := range reqs {
		body := "nil"
		if r.Body != "" {
			body = luaString(r.Body)
		}
		fmt.Fprintf(&sb, "  {%s, %s, %s},\n", luaString(r.Method), luaString(r.Path), body)
	}
	sb.WriteString("}\n")
	fmt.Fprintf(&sb, "local token = %s\n", luaString("Bearer "+token))
	sb.WriteString(`local reqs = {}
threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
function init(args)
  math.randomseed(1 + 7919 * (tid or 0))
  for i, r in ipairs(raw) do
    local h = {["Authorization"] = token}
    if r[3] then h["Content-Type"] = "application/json" end
    reqs[i] = wrk.format(r[1], r[2], h, r[3])
  end
end
function request()
  return reqs[math.random(#reqs)]
end
`)
	return sb.String()
}

// luaString quotes s as a Lua string literal: printable ASCII as is, everything else
// (UTF-8 bytes included) as decimal escapes, which LuaJIT reads byte for byte.
func luaString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "\\%03d", c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// writeScript writes the script of e into dir and returns its path.
func writeScript(dir string, e endpoint, token string) (string, error) {
	path := filepath.Join(dir, "wrk-"+e.name+".lua")
	return path, os.WriteFile(path, []byte(luaScript(e.reqs, token)), 0o600)
}
