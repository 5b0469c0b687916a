#!/bin/bash
# When the SkylakeX process (seeds 2,4) ends, a second Haswell process takes seed 5 so both cores stay busy;
# the run locks (flock) keep the two Haswell processes off each other's runs.
cd /work/main
D=/work/models/rc3
:
echo "extra seed-3 Haswell process start $(date -u +%FT%TZ)" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v1-recipe-choices-session.json -run-seeds 3 -threads 1 data/bench > $D/h3.log 2> $D/h3.err
rc=$?
echo "extra seed-3 end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
