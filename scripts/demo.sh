#!/usr/bin/env bash
# Installs what is missing, builds, generates a sample dump of 2M URLs (about
# 40% repeats, gzip-compressed) and deduplicates it, showing what gdedup
# prints. Files go to out/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build=${GDEDUP_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target gdedup_cli gen_urls
mkdir -p out
"$build/bench/gen_urls" -n 2000000 -q -o out/sample.txt
gzip -f -1 out/sample.txt
echo "\$ gdedup dedup out/sample.txt.gz -o out/unique.txt --stats out/stats.json"
"$build/gdedup" dedup out/sample.txt.gz -o out/unique.txt --stats out/stats.json
echo "\$ wc -l out/unique.txt"
wc -l out/unique.txt
echo "\$ gdedup plan --capacity 1e9 --fpr 1e-4"
"$build/gdedup" plan --capacity 1e9 --fpr 1e-4
