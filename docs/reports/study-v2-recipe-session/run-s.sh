#!/bin/bash
# v2-recipe-session, seeds 2,4,5 (SkylakeX; seed 5 moved here at 22:48); binary built with -buildvcs=auto; starts once the flywheel piece's seed-5 helper has ended
cd /work/main
D=/work/models/study5
echo "skylakex start $(date -u +%FT%TZ) binary $(go version -m $D/sqlrl | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=SkylakeX $D/sqlrl experiment study -q -config docs/studies/v2-recipe-session.json -run-seeds 2,4,5 -threads 1 data/bench-v2 > $D/s.log 2> $D/s.err
rc=$?  # before any command substitution resets $?
echo "skylakex end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
