#!/bin/bash
cd /work/main
D=/work/models/alg2
echo "final-test start $(date -u +%FT%TZ)" >> $D/meta.txt
$D/sqlrl experiment study -config docs/studies/v1-algorithms2-session.json -final-test -threads 2 data/bench > $D/final.log 2> $D/final.err
rc=$?
echo "final-test end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
