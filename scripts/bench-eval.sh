#!/usr/bin/env bash
# Times `sqlrl eval` against BIRD's official evaluation.py on the same
# predictions (the 2,296 mutated pairs of eval/testdata/official), both on
# both cores, and checks that the two print the same accuracies.
#
#   BIRD_EVAL=/path/to/evaluation.py [FUNC_TIMEOUT=/dir/with/func_timeout] scripts/bench-eval.sh [runs]
#
# evaluation.py is BIRD's (github.com/AlibabaResearch/DAMO-ConvAI,
# bird/llm/src/evaluation.py); it needs the PyPI package func_timeout, or a
# stand-in on PYTHONPATH. It opens databases read-write, so it runs on a copy.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
: "${BIRD_EVAL:?set BIRD_EVAL to the path of the official BIRD evaluation.py}"
py=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -buildvcs=auto -o "$work/sqlrl" ./cmd/sqlrl
"$py" - "$work" <<'PY'
import json, sys
w = sys.argv[1]
rows = [json.loads(l) for l in open('eval/testdata/official/bird_ex.jsonl')]
with open(w + '/dev_gold.sql', 'w') as f:
    for r in rows:
        f.write(r['gold'].replace('\n', ' ').strip() + '\t' + r['db_id'] + '\n')
json.dump({str(i): r['pred'] + '\t----- bird -----\t' + r['db_id'] for i, r in enumerate(rows)}, open(w + '/predict_dev.json', 'w'))
json.dump([{'question_id': i, 'db_id': r['db_id'], 'question': '', 'evidence': '', 'SQL': r['gold'], 'difficulty': r['difficulty']}
           for i, r in enumerate(rows)], open(w + '/dev.json', 'w'))
PY
official=() ours=()
for i in $(seq "$runs"); do
  rm -rf "$work/dbs" && cp -r datasets/bird-dev-sample/dev_databases "$work/dbs"
  s=$(date +%s.%N)
  (cd "$work" && PYTHONPATH="${FUNC_TIMEOUT:-}" "$py" "$BIRD_EVAL" --predicted_sql_path ./ --ground_truth_path ./ \
     --data_mode dev --db_root_path ./dbs/ --num_cpus 2 --diff_json_path dev.json) > "$work/official.txt"
  official+=("$(echo "$(date +%s.%N) - $s" | bc)")
  s=$(date +%s.%N)
  "$work/sqlrl" eval --gold "$work/dev_gold.sql" --db-root "$work/dbs" --questions "$work/dev.json" \
     --pred "$work/predict_dev.json" --quiet > "$work/ours.txt"
  ours+=("$(echo "$(date +%s.%N) - $s" | bc)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mo=$(median "${official[@]}") ms=$(median "${ours[@]}")
grep accuracy "$work/official.txt"
grep '^EX' "$work/ours.txt"
echo "official evaluation.py: runs ${official[*]} s, median $mo s"
echo "sqlrl eval:             runs ${ours[*]} s, median $ms s"
ratio=$(echo "scale=2; $mo / $ms" | bc)
echo "speedup of medians: ${ratio}x on $(nproc) cores"
