#!/bin/bash
# helper: once the SkylakeX process ends, a second Haswell process takes seed 5 (the same command)
cd /work/main
D=/work/models/study4
while pgrep -f "run-seeds 2,4 -threads 1 data/bench$" > /dev/null; do sleep 10; done
echo "seed5 helper start $(date -u +%FT%TZ)" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v1-algorithms-flywheel-session.json -run-seeds 5 -threads 1 data/bench > $D/h5.log 2> $D/h5.err
echo "seed5 helper end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
