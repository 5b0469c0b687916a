#!/bin/bash
# specialise-sft100's rule (docs/studies/specialise-sft100.md), after run.sh: B's synthetic dev by vote; the human test only if B >= A + 1.0
cd /work/main
D=/work/models/sft100
B=$D/sqlrl
O=out/specialise-sft100-s1
R=docs/reports/specialise-sft100
while kill -0 12115 2>/dev/null; do sleep 20; done
grep -q 'specialise end .* rc 0' $D/meta.txt || { echo "score not started: specialise failed" >> $D/meta.txt; exit 1; }
M=$O/flywheel/runs/sft-e45924b2f9db/train
mkdir -p $R
echo "dev vote start $(date -u +%FT%TZ)" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $B score -model $M -questions $O/data/dev.json -db-root $O/data/dev_databases -vote 8 -json $R/dev-vote-sft100.json > $D/devvote.log 2> $D/devvote.err
rc=$?
echo "dev vote end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
[ $rc = 0 ] || exit 1
b=$(jq -r '.total.accuracy / 100' $R/dev-vote-sft100.json)
a=$(jq -r '.eval.ex' $O/dev-vote.json)
echo "rule: B dev by vote $b, A $a" >> $D/meta.txt
if python3 -c "import sys; sys.exit(0 if $b >= $a + 0.01 - 1e-12 else 1)"; then
  echo "rule met: human test read $(date -u +%FT%TZ)" >> $D/meta.txt
  OPENBLAS_CORETYPE=Haswell $B score -model $M -questions datasets/bird-dev-sample/dev.json -db-root datasets/bird-dev-sample/dev_databases -vote 8 -json $R/human-sft100-vote.json -test-reads $O > $D/hv.log 2> $D/hv.err
  echo "human vote end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
  OPENBLAS_CORETYPE=Haswell $B score -model $M -questions datasets/bird-dev-sample/dev.json -db-root datasets/bird-dev-sample/dev_databases -json $R/human-sft100-greedy.json -test-reads $O > $D/hg.log 2> $D/hg.err
  echo "human greedy end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
else
  echo "rule not met: A stands, the human test not read $(date -u +%FT%TZ)" >> $D/meta.txt
fi
