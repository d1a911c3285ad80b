#!/usr/bin/env bash
# The same benchmark twice, with the same flags: once with the warehouse on
# local disk, once on S3 (versitygw's posix backend over a temp directory, on
# a free 127.0.0.1 port), then the magmalake times side by side (issue 18:
# on S3 a merge-on-read DELETE should stay within 2x of local disk).
#
#   bench/s3.sh [delete|select] [bench flags]
#   bench/s3.sh delete --rows 10000000 --case scattered-1pct --mode mor-v3 --layout unpartitioned
#   bench/s3.sh select --rows 1000000 --no-postgres
#
# select always gets --no-duckdb (DuckDB reads magmalake's files from disk).
# Run from anywhere; the catalog, the bucket's directory and the binary live
# in a temp directory that is removed afterwards, and the server is stopped.
#   MAGMALAKE_VERSITYGW  versitygw binary (default .cache/bin/versitygw, else
#                        go install versitygw@v1.8.0 into .cache/bin)
#   MAGMALAKE_BENCH_BIN  magmalake-bench binary (default: built from this
#                        checkout)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bench=delete
if [[ $# -gt 0 && ($1 == delete || $1 == select) ]]; then
    bench=$1
    shift
fi
flags=("$@")
[[ $bench == select ]] && flags+=(--no-duckdb)

work="$(mktemp -d "${TMPDIR:-/tmp}/magmalake-bench-s3-XXXXXX")"
pid=
cleanup() {
    if [[ -n $pid ]]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

versitygw="${MAGMALAKE_VERSITYGW:-$root/.cache/bin/versitygw}"
if [[ ! -x $versitygw ]]; then
    echo "s3.sh: go install versitygw@v1.8.0 into $root/.cache/bin" >&2
    mkdir -p "$root/.cache/bin"
    GOBIN="$root/.cache/bin" go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
    echo v1.8.0 >"$root/.cache/bin/versitygw.version"
    versitygw="$root/.cache/bin/versitygw"
fi

benchbin="${MAGMALAKE_BENCH_BIN:-}"
if [[ -z $benchbin ]]; then
    benchbin="$work/magmalake-bench"
    (cd "$root" && go build -o "$benchbin" ./cmd/magmalake-bench)
fi

# A port nothing answers on: bash's /dev/tcp connect fails on a free one.
port=
for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        port=$p
        break
    fi
done
[[ -n $port ]] || { echo "s3.sh: no free port found" >&2; exit 1; }

# Static credentials and no instance metadata for everything using the AWS SDK.
export AWS_ACCESS_KEY_ID=magmalake-bench AWS_SECRET_ACCESS_KEY=magmalake-bench-secret AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
endpoint="http://127.0.0.1:$port"
bucket=bench

mkdir -p "$work/s3" "$work/scratch"
# --keep-alive: without it versitygw closes the connection after every answer,
# which S3 does not do, and each GET would also pay a TCP connect.
"$versitygw" --port "127.0.0.1:$port" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --keep-alive \
    posix "$work/s3" >"$work/versitygw.log" 2>&1 &
pid=$!
until curl -s -o /dev/null "$endpoint/"; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "s3.sh: versitygw exited:" >&2
        cat "$work/versitygw.log" >&2
        exit 1
    fi
    sleep 0.1
done
curl -fsS -X PUT --aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    "$endpoint/$bucket" >/dev/null

s3flags=(--warehouse "s3://$bucket/$bench"
    --catalog-prop "s3.endpoint=$endpoint" --catalog-prop "s3.region=$AWS_REGION"
    --catalog-prop "s3.access-key-id=$AWS_ACCESS_KEY_ID" --catalog-prop "s3.secret-access-key=$AWS_SECRET_ACCESS_KEY"
    --catalog-prop s3.force-virtual-addressing=false)

echo "== local: magmalake-bench $bench ${flags[*]}"
"$benchbin" "$bench" --dir "$work/scratch" "${flags[@]}" | tee "$work/local.out"
echo "== s3 (versitygw on $endpoint): magmalake-bench $bench ${flags[*]} ${s3flags[*]}"
"$benchbin" "$bench" --dir "$work/scratch" "${flags[@]}" "${s3flags[@]}" | tee "$work/s3.out"

# Text lines start with the case (or query and table) and carry
# "magmalake <ms>"; print S3 over local for each.
echo "== magmalake on s3 over local"
awk '
    { ms = ""; for (i = 1; i < NF; i++) if ($i == "magmalake" && $(i + 1) ~ /^[0-9.]+$/) { key = $1 " " $2; ms = $(i + 1); break } }
    ms == "" { next }
    FNR == NR { local[key] = ms; next }
    key in local { printf "%-45s local %10.1f ms  s3 %10.1f ms  %.2fx\n", key, local[key], ms, ms / local[key] }
' "$work/local.out" "$work/s3.out"
