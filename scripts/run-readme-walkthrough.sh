#!/usr/bin/env bash
# Runs the developer walkthrough of README.md exactly as written (the shell block between the
# walkthrough markers) from the repository root, and checks the status codes it prints.
# PORT and FILES_PORT choose the ports (default 8001 and 8443). The walkthrough/ folder is
# removed before and after; every process the walkthrough started is stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
export PORT=${PORT:-8001} FILES_PORT=${FILES_PORT:-8443}
if curl -s -o /dev/null "http://127.0.0.1:$PORT/"; then echo "walkthrough: port $PORT is in use"; exit 1; fi
script=$(awk '/<!-- walkthrough:start -->/{on=1; next} /<!-- walkthrough:end -->/{on=0} on && !/^```/' README.md)
rm -rf walkthrough
output=$(mktemp)
group=''
cleanup() {
  [ -n "$group" ] && kill -- "-$group" 2>/dev/null || true
  rm -rf walkthrough "$output"
}
trap cleanup EXIT
# Its own process group, so that whatever it leaves running can be stopped as one.
setsid bash -euo pipefail -c "$script" >"$output" 2>&1 &
group=$!
status=0
wait "$group" || status=$?
# The walkthrough stops what it starts: nothing of its process group may be left.
sleep 0.5
if left=$(pgrep -g "$group" -a); then
  echo "walkthrough: processes left running:"; echo "$left"; exit 1
fi
grep -v 'Unknown user config' "$output" || true
if [ "$status" -ne 0 ]; then
  echo "walkthrough failed with status $status"
  tail -20 walkthrough/store.log 2>/dev/null || true
  exit 1
fi
for expected in 'register: 201' 'publish: 201' 'listed: myapp 1.0.0' 'delete: 204'; do
  grep -qx "$expected" "$output" || { echo "walkthrough: expected '$expected'"; tail -20 walkthrough/store.log 2>/dev/null; exit 1; }
done
echo 'walkthrough: ok'
