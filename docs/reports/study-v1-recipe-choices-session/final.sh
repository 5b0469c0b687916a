#!/bin/bash
# After the runs (run.sh, extra5.sh) end with rc 0: the test split, read once.
cd /work/main
D=/work/models/rc3
while pgrep -f 'v1-recipe-choices-session.json -run-seeds' >/dev/null; do sleep 30; done
if ! grep -q 'runs end .* rc haswell 0 skylakex 0' $D/meta.txt || ! grep -q 'extra seed-5 end .* rc 0' $D/meta.txt || ! grep -q 'extra seed-3 end .* rc 0' $D/meta.txt; then
  echo "final-test not started $(date -u +%FT%TZ): a run process failed" >> $D/meta.txt; exit 1
fi
echo "final-test start $(date -u +%FT%TZ)" >> $D/meta.txt
$D/sqlrl experiment study -config docs/studies/v1-recipe-choices-session.json -final-test -threads 2 data/bench > $D/final.log 2> $D/final.err
rc=$?
echo "final-test end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
