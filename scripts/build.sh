#!/bin/sh
# Builds the quire binary as releases and the container image do: static (no cgo; SQLite is
# pure Go), without local paths, with the version embedded. The Dockerfile runs this, and so does
# .ci/run where no container engine is available, so both build the same way.
#
#   scripts/build.sh [OUTPUT]          default OUTPUT: ./quire
#   VERSION=v1.4.0 scripts/build.sh    a release; default: git describe, else "devel"
set -eu
out="${1:-quire}"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out" ./cmd/quire
