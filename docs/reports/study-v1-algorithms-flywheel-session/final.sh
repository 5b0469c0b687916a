#!/bin/bash
cd /work/main
D=/work/models/study4
echo "final-test start $(date -u +%FT%TZ) checkout $(git rev-parse --short HEAD) binary bin/sqlrl $(go version -m bin/sqlrl | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
{ time bin/sqlrl experiment study -config docs/studies/v1-algorithms-flywheel-session.json -final-test -threads 2 data/bench > $D/final.log 2> $D/final.err ; } 2> $D/final-time.txt
echo "final-test end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
