#!/bin/bash
# restart after the processes ended with the previous session (19:50): two Haswell processes, seeds 3 and 1,5
cd /work/main
D=/work/models/study2
echo "restart $(date -u +%FT%TZ) main $(git rev-parse --short HEAD) binary 230a8ce" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v2-okto-session.json -run-seeds 3 -threads 1 data/bench-v2 > $D/h3.log 2> $D/h3.err &
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v2-okto-session.json -run-seeds 1,5 -threads 1 data/bench-v2 > $D/h15.log 2> $D/h15.err
echo "seeds 1,5 end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
wait
echo "restart end $(date -u +%FT%TZ)" >> $D/meta.txt
