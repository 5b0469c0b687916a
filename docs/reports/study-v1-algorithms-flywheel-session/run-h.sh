#!/bin/bash
# v1-algorithms-flywheel-session, seeds 1,3,5 (Haswell), binary built at main 14065b4
cd /work/main
D=/work/models/study4
echo "haswell start $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v1-algorithms-flywheel-session.json -run-seeds 1,3,5 -threads 1 data/bench > $D/h.log 2> $D/h.err
echo "haswell end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
