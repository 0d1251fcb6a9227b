#!/usr/bin/env bash
# Run each atheris fuzz target for a bounded time; exit 1 on the first crash (input kept in .fuzz/).
# Usage: fuzz/run.sh SECONDS [TARGET...]   (targets: ledger sources draft)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"; shift || true
targets=("$@"); [ "${#targets[@]}" -gt 0 ] || targets=(ledger sources draft)
python="${PYTHON:-.venv/bin/python}"
total=0
for t in "${targets[@]}"; do
  mkdir -p ".fuzz/$t"
  echo "== fuzz $t for ${seconds}s"
  log=".fuzz/$t.log"
  "$python" "fuzz/fuzz_$t.py" ".fuzz/$t" "fuzz/seeds/$t" -max_total_time="$seconds" -timeout=30 \
    -rss_limit_mb=4096 -artifact_prefix=".fuzz/$t-" -print_final_stats=1 >"$log" 2>&1
  status=$?
  runs=$(grep -oE "stat::number_of_executed_units: [0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)
  total=$((total + ${runs:-0}))
  echo "   $runs inputs executed"
  if [ "$status" -ne 0 ]; then
    grep -E "Traceback|Error|Test unit written|ERROR" "$log" | head -20
    echo "fuzz $t FAILED (exit $status); see $log"
    exit 1
  fi
done
echo "fuzz: $total inputs executed, no crash"
