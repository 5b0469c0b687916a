#!/bin/bash
# v2-recipe-session, seeds 1,3 (Haswell; seed 5 moved to SkylakeX at 22:48 to balance the cores); binary built with -buildvcs=auto
cd /work/main
D=/work/models/study5
echo "haswell start $(date -u +%FT%TZ) binary $(go version -m $D/sqlrl | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v2-recipe-session.json -run-seeds 1,3 -threads 1 data/bench-v2 > $D/h.log 2> $D/h.err
rc=$?  # before any command substitution resets $?
echo "haswell end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
