#!/bin/bash
# B(3) second piece, docs/studies/README.md's commands (the first piece's starts and online KTO copied in a previous session)
cd /work/main
D=/work/models/alg2
B=$D/sqlrl
echo "start $(date -u +%FT%TZ) binary $(go version -m $B | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell  $B experiment study -q -config docs/studies/v1-algorithms2-session.json -run-seeds 1,3,5 -threads 1 data/bench > $D/h.log 2> $D/h.err &
p1=$!
OPENBLAS_CORETYPE=SkylakeX $B experiment study -q -config docs/studies/v1-algorithms2-session.json -run-seeds 2,4 -threads 1 data/bench > $D/s.log 2> $D/s.err
rc2=$?
wait $p1
rc1=$?
echo "runs end $(date -u +%FT%TZ) rc haswell $rc1 skylakex $rc2" >> $D/meta.txt
