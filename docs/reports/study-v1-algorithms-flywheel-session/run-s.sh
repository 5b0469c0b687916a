#!/bin/bash
# v1-algorithms-flywheel-session, seeds 2,4 (SkylakeX), binary built at main 14065b4
cd /work/main
D=/work/models/study4
echo "skylakex start $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)" >> $D/meta.txt
OPENBLAS_CORETYPE=SkylakeX $D/sqlrl experiment study -q -config docs/studies/v1-algorithms-flywheel-session.json -run-seeds 2,4 -threads 1 data/bench > $D/s.log 2> $D/s.err
echo "skylakex end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
