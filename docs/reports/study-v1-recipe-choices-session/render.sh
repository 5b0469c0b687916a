#!/bin/bash
# The report re-rendered by 1cea957 (the comparisons' labels): -final-test again, which evaluates nothing anew
# (every test evaluation is a finished run) and records a second read of test.
cd /work/main
D=/work/models/rc3
echo "render start $(date -u +%FT%TZ) binary $(go version -m $D/sqlrl-render | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
$D/sqlrl-render experiment study -config docs/studies/v1-recipe-choices-session.json -final-test -threads 2 data/bench > $D/render.log 2> $D/render.err
rc=$?
echo "render end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
