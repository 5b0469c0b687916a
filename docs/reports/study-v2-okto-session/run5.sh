#!/bin/bash
cd /work/main
D=/work/models/study2
echo "seed5 helper start $(date -u +%FT%TZ)" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v2-okto-session.json -run-seeds 5 -threads 1 data/bench-v2 > $D/h5.log 2> $D/h5.err
echo "seed5 helper end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
