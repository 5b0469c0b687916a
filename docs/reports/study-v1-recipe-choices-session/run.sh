#!/bin/bash
# B(3) third piece, docs/studies/README.md's commands (the second piece's starts and online KTO copied first)
cd /work/main
D=/work/models/rc3
B=$D/sqlrl
mkdir -p out/study-v1-recipe-choices-session/runs
cp -an out/study-v1-algorithms2-session/runs/. out/study-v1-recipe-choices-session/runs/
echo "start $(date -u +%FT%TZ) binary $(go version -m $B | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell  $B experiment study -q -config docs/studies/v1-recipe-choices-session.json -run-seeds 1,3,5 -threads 1 data/bench > $D/h.log 2> $D/h.err &
p1=$!
OPENBLAS_CORETYPE=SkylakeX $B experiment study -q -config docs/studies/v1-recipe-choices-session.json -run-seeds 2,4 -threads 1 data/bench > $D/s.log 2> $D/s.err
rc2=$?
wait $p1
rc1=$?
echo "runs end $(date -u +%FT%TZ) rc haswell $rc1 skylakex $rc2" >> $D/meta.txt
