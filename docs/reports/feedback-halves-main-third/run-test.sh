#!/bin/bash
# feedback-halves-main-third.md: after the dev arms, the choice (the rule of the config) and the one test run
cd /work/main
while pgrep -f run-dev.sh > /dev/null; do sleep 15; done
B=/work/models/fh3/sqlrl
M=out/specialise/flywheel/runs/sft-79abc386615f/train
choice=$(python3 - <<'PY'
import json
flags={'A':'-train sft -sft-lr 1e-4 -sft-epochs 4','B':'-train sft -sft-lr 2e-4 -sft-epochs 4','C':'-train sft -sft-lr 1e-4 -sft-epochs 8','D':'-train sft -sft-lr 2e-4 -sft-epochs 8','E':'-train kto'}
g={a: json.load(open(f'out/fh3-dev-{a}/report.json'))['pooled']['diff'] for a in 'ABCDE'}
best=max(g, key=g.get)
arm = best if g[best] >= g['A'] + 1.0 else 'A'
print(arm, flags[arm], ' '.join(f'{a}={g[a]:+.2f}' for a in 'ABCDE'))
PY
)
echo "choice $(date -u +%FT%TZ) $choice" >> /work/models/fh3/meta.txt
set -- $choice
arm=$1; shift
f="$1 $2 $3 $4 $5 $6"; [ "$arm" = E ] && f="-train kto"
echo "test start $(date -u +%FT%TZ) arm $arm flags $f" >> /work/models/fh3/meta.txt
OPENBLAS_CORETYPE=Haswell $B experiment feedback-halves $f -model $M \
  -questions datasets/bird-dev-sample/dev.json -seeds 9,10,11,12,13 -threads 1 -out out/feedback-halves-main-third > /work/models/fh3/test.log 2> /work/models/fh3/test.err
rc=$?
echo "test end $(date -u +%FT%TZ) rc $rc" >> /work/models/fh3/meta.txt
