#!/bin/bash
# When the SkylakeX process (seeds 2,4) ends, a second Haswell process takes seed 5 so both cores stay busy;
# the run locks (flock) keep the two Haswell processes off each other's runs.
cd /work/main
D=/work/models/rc3
while kill -0 7206 2>/dev/null; do sleep 20; done
echo "extra seed-5 Haswell process start $(date -u +%FT%TZ)" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl experiment study -q -config docs/studies/v1-recipe-choices-session.json -run-seeds 5 -threads 1 data/bench > $D/h5.log 2> $D/h5.err
rc=$?
echo "extra seed-5 end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
