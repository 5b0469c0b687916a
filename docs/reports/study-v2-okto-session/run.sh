#!/bin/bash
cd /work/main
B=/work/models/study2/sqlrl
D=/work/models/study2
echo "start $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)" > $D/meta.txt
OPENBLAS_CORETYPE=Haswell  $B experiment study -q -config docs/studies/v2-okto-session.json -run-seeds 1,3,5 -threads 1 data/bench-v2 > $D/h.log 2> $D/h.err &
OPENBLAS_CORETYPE=SkylakeX $B experiment study -q -config docs/studies/v2-okto-session.json -run-seeds 2,4 -threads 1 data/bench-v2 > $D/s.log 2> $D/s.err
echo "skylakex end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
wait
echo "end $(date -u +%FT%TZ)" >> $D/meta.txt
