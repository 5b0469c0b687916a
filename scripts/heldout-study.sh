#!/usr/bin/env bash
# Where online KTO's gain is, as measured in docs/history.md ("Where online
# KTO's gain is" and "Against SFT on the same questions' gold"), seed 1:
# the 25% holdout of the SFT-75 run cut in two, B = the holdout of the
# 0.875 split, A = the rest; every model scored, greedy and guided, on A,
# B and dev:
#   SFT-75; + KTO on B; + KTO on A (a question file); SFT-87.5 (SFT-75's
#   share + A's gold); + KTO on B with renamed samples; + KTO on B with the
#   supervised term (W = 1, 10).
# The 3-seed figures of the same section are `sqlrl experiment flywheel
# -seeds 1,2,3` (KTO on B, scored on A as the split heldout).
#
# SFT75 is the SFT-75 run to start from (default: trained here, small
# preset, seed 1, 12 min). Resumable: a step whose output exists is
# skipped. OUT defaults to out/heldout-study. Cost on 2 cores: about 8 min
# per KTO run (5 of them), 14 min for SFT-87.5, 30 s per evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/heldout-study}
D=${BENCH:-data/bench}
mkdir -p "$OUT"
scripts/deps.sh >/dev/null
if ! command -v jq >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y -qq jq >&2
fi
go build -buildvcs=auto -o bin/sqlrl ./cmd/sqlrl
[ -f "$D/dev.json" ] || bin/sqlrl bench generate --preset small --out "$D"
S=${SFT75:-$OUT/sft75}
[ -e "$S/latest" ] || bin/sqlrl train sft -sft-fraction 0.75 -seed 1 -eval-every -1 -out "$S" "$D"

# A and B as benchmark folders over the training databases (dev.json only)
split_dir() { # NAME JQ_FILTER: questions of the 0.75 holdout that the filter keeps
  local dir="$OUT/$1"
  [ -f "$dir/dev.json" ] && return
  mkdir -p "$dir"
  ln -sfn "$(realpath "$D/train_databases")" "$dir/dev_databases"
  cp "$D/train_tables.json" "$dir/dev_tables.json"
  jq -s --slurpfile b <(jq -s '[.[].question_id]' "$OUT/prep875/holdout.jsonl") "$2" "$OUT/prep75/holdout.jsonl" > "$dir/dev.json.part"
  mv "$dir/dev.json.part" "$dir/dev.json"
}
[ -f "$OUT/prep75/holdout.jsonl" ] || bin/sqlrl data prepare -augment 1 -out "$OUT/prep75" "$D"
[ -f "$OUT/prep875/holdout.jsonl" ] || bin/sqlrl data prepare -augment 1 -sft-fraction 0.875 -out "$OUT/prep875" "$D"
split_dir A '[.[] | select(.question_id as $q | ($b[0] | index($q)) == null) | del(.prompt)]'
split_dir B '[.[] | select(.question_id as $q | ($b[0] | index($q)) != null) | del(.prompt)]'

kto() { # NAME FLAGS...: online KTO from SFT-75 at the flywheel's settings
  local name=$1; shift
  [ -e "$OUT/$name/latest" ] && grep -q '"step":200,' "$OUT/$name/train_log.jsonl" && return
  bin/sqlrl train kto -init "$S" -seed 1 -lr 5e-5 -steps 200 -eval-every -1 -q -out "$OUT/$name" "$@" "$D"
}
kto ktoB -sft-fraction 0.875
kto ktoA -questions "$OUT/A/dev.json" -db-root "$D/train_databases" -augment 4
kto ktoB_rename -sft-fraction 0.875 -rename 0.9
kto ktoB_w1 -sft-fraction 0.875 -sft-weight 1
kto ktoB_w10 -sft-fraction 0.875 -sft-weight 10
[ -e "$OUT/sft875/latest" ] || bin/sqlrl train sft -sft-fraction 0.875 -seed 1 -eval-every -1 -out "$OUT/sft875" "$D"

ex() { # MODEL_DIR BENCH_DIR TAG: greedy guided EX (total) of the model on the folder's dev split
  local p="$OUT/pred_$3.jsonl"
  [ -f "$p" ] || bin/sqlrl generate -model "$1" -split dev -out "$p" "$2" >/dev/null 2>&1
  bin/sqlrl eval --data "$2" --split dev --pred "$p" 2>/dev/null | awk '/^EX/ {print $NF}'
}
printf '%-14s %8s %8s %8s\n' model A B dev
for m in sft75 ktoB ktoA sft875 ktoB_rename ktoB_w1 ktoB_w10; do
  dir="$OUT/$m"
  [ "$m" = sft75 ] && dir="$S"
  printf '%-14s %8s %8s %8s\n' "$m" "$(ex "$dir" "$OUT/A" "${m}_A")" "$(ex "$dir" "$OUT/B" "${m}_B")" "$(ex "$dir" "$D" "${m}_dev")"
done | tee "$OUT/table.txt"
