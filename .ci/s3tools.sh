#!/usr/bin/env bash
# Builds the S3 servers the object-storage tests run against, into the
# checkout's ignored .cache/bin, and exports their paths:
#   MAGMALAKE_VERSITYGW  versitygw (S3 gateway over a POSIX directory)
#   MAGMALAKE_WEED       SeaweedFS "weed" (S3 + Iceberg REST catalog, weed mini)
# Sourced by .ci/run; also runnable on its own (bench/lake.sh uses it).
# A binary already in .cache/bin with the pinned version stamp is reused, so
# warm runs cost nothing; a cold build takes 4 minutes (versitygw) plus 10-22
# (weed) on 2 cores.
set -euo pipefail

S3TOOLS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
S3TOOLS_BIN="$S3TOOLS_ROOT/.cache/bin"
VERSITYGW_VERSION=v1.8.0
WEED_MODULE=github.com/seaweedfs/seaweedfs
WEED_VERSION=v0.0.0-20261109003541-7506e5f91cd6

mkdir -p "$S3TOOLS_BIN"
command -v go >/dev/null || export PATH="$PATH:/usr/local/go/bin"

# stamp_ok BIN VERSION: BIN exists and was built from VERSION.
stamp_ok() { [[ -x $1 && -f $1.version && "$(cat "$1.version")" == "$2" ]]; }

if ! stamp_ok "$S3TOOLS_BIN/versitygw" "$VERSITYGW_VERSION"; then
    echo "s3tools: go install versitygw@$VERSITYGW_VERSION"
    GOBIN="$S3TOOLS_BIN" nice -n 19 go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
    echo "$VERSITYGW_VERSION" >"$S3TOOLS_BIN/versitygw.version"
fi

if ! stamp_ok "$S3TOOLS_BIN/weed" "$WEED_VERSION"; then
    # go install refuses a module with replace directives: build it as the
    # main module from a writable copy of the module cache download.
    echo "s3tools: building weed ($WEED_MODULE@$WEED_VERSION; cold: 10-22 min)"
    work="$(mktemp -d)"
    trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
    # Outside any module, so the checkout's go.mod and go.sum stay untouched.
    src="$(cd "$work" && go mod download -json "$WEED_MODULE@$WEED_VERSION" |
        sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    [[ -n $src && -d $src ]] || { echo "s3tools: no module dir for $WEED_MODULE" >&2; exit 1; }
    cp -r "$src/." "$work/"
    chmod -R u+w "$work"
    (cd "$work" && GOFLAGS=-mod=mod nice -n 19 go build -o "$S3TOOLS_BIN/weed.tmp" ./weed)
    mv "$S3TOOLS_BIN/weed.tmp" "$S3TOOLS_BIN/weed"
    echo "$WEED_VERSION" >"$S3TOOLS_BIN/weed.version"
    chmod -R u+w "$work" && rm -rf "$work"
    trap - EXIT
fi

export MAGMALAKE_VERSITYGW="$S3TOOLS_BIN/versitygw"
export MAGMALAKE_WEED="$S3TOOLS_BIN/weed"
