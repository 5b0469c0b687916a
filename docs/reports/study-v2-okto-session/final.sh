#!/bin/bash
cd /work/main
D=/work/models/study2
echo "final-test start $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD)" >> $D/meta.txt
{ time bin/sqlrl experiment study -config docs/studies/v2-okto-session.json -final-test -threads 2 data/bench-v2 > $D/final.log 2> $D/final.err ; } 2> $D/final-time.txt
echo "final-test end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
