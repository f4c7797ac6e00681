#!/usr/bin/env bash
# Rebuilds internal/httpapi/reference/redoc.standalone.js, the renderer of the API reference at
# /docs, from the pinned npm package. One change is made to the bundle: the logo of its
# "API docs by Redocly" footer link is loaded from cdn.redoc.ly, which an offline page must not
# do, so it becomes an empty inline SVG (the link and its text stay).
set -euo pipefail
cd "$(dirname "$0")/.."
version=2.5.4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "redoc@$version" >/dev/null && tar xzf "redoc-$version.tgz")
out=internal/httpapi/reference/redoc.standalone.js
sed 's#https://cdn.redoc.ly/redoc/logo-mini.svg#data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E#' \
  "$tmp/package/bundles/redoc.standalone.js" > "$out"
if grep -q 'https://cdn\.redoc\.ly' "$out"; then echo "the bundle still loads from cdn.redoc.ly" >&2; exit 1; fi
{
  echo "Redoc $version (npm package redoc@$version, bundles/redoc.standalone.js), embedded as the renderer"
  echo "of Quire's API reference at /docs, with one change made by scripts/vendor-redoc.sh: the logo of"
  echo "its footer link is an empty inline SVG instead of an image from cdn.redoc.ly."
  echo
  cat "$tmp/package/LICENSE"
  echo
  echo "----- Licences of the code bundled in redoc.standalone.js (bundles/redoc.standalone.js.LICENSE.txt) -----"
  echo
  cat "$tmp/package/bundles/redoc.standalone.js.LICENSE.txt"
} > internal/httpapi/reference/LICENSE.redoc.txt
sha256sum "$out"
