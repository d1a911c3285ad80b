#!/usr/bin/env bash
# Starts a whole shared lake on this machine, on 127.0.0.1 only: SeaweedFS's
# "weed mini" (S3 and an Iceberg REST catalog serving the table bucket
# "warehouse") and SERVERS magmalake servers on it, on ports 5433, 5434, ...
# Runs until Ctrl-C, then stops everything; the data stays in DIR.
#
#   bench/lake.sh [DIR] [SERVERS]        (defaults: ./lake-data, 2)
#   psql -h 127.0.0.1 -p 5433 -U you -d lake
#
# weed is built once into .cache/bin by .ci/s3tools.sh (10-20 minutes cold).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(mkdir -p "${1:-lake-data}" && cd "${1:-lake-data}" && pwd)"
servers="${2:-2}"
source "$root/.ci/s3tools.sh"

export AWS_ACCESS_KEY_ID=magmalake AWS_SECRET_ACCESS_KEY=magmalake-secret AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
S3=18333 REST=18181

mkdir -p "$dir/weed"
"$MAGMALAKE_WEED" -logdir="$dir" mini -dir="$dir/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.telemetry=false -webdav=false -admin.ui=false -tableBucket=warehouse \
    -s3.port=$S3 -s3.port.iceberg=$REST -s3.port.grpc=18334 -s3.port.lance=0 \
    -master.port=19333 -master.port.grpc=19334 -volume.port=18080 -volume.port.grpc=18081 \
    -filer.port=18888 -filer.port.grpc=18889 -admin.port=23646 -admin.port.grpc=23647 \
    -admin.port.legacy=0 >"$dir/weed.out" 2>&1 &
pids=($!)
trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT INT TERM

echo "lake: waiting for weed (log: $dir/weed.out)"
until curl -fsS "http://127.0.0.1:$REST/v1/config?warehouse=warehouse" >/dev/null 2>&1 &&
    grep -q "All enabled components are running" "$dir/weed.out"; do
    sleep 0.5
done

flags=(--catalog lake
    --catalog-prop type=rest --catalog-prop "uri=http://127.0.0.1:$REST"
    --catalog-prop warehouse=warehouse --catalog-prop "credential=$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"
    --catalog-prop "s3.endpoint=http://127.0.0.1:$S3" --catalog-prop s3.region=$AWS_REGION
    --catalog-prop "s3.access-key-id=$AWS_ACCESS_KEY_ID" --catalog-prop "s3.secret-access-key=$AWS_SECRET_ACCESS_KEY"
    --catalog-prop s3.force-virtual-addressing=false)

(cd "$root" && go build -o "$dir/magmalake" ./cmd/magmalake)
for ((i = 0; i < servers; i++)); do
    "$dir/magmalake" serve "${flags[@]}" --listen "127.0.0.1:$((5433 + i))" >"$dir/serve-$i.log" 2>&1 &
    pids+=($!)
    echo "lake: magmalake serve on 127.0.0.1:$((5433 + i)) (log: $dir/serve-$i.log)"
done
echo "lake: the same lake from a shell: $dir/magmalake repl ${flags[*]}"
wait -n "${pids[@]}"
