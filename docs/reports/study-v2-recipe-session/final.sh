#!/bin/bash
# v2-recipe-session's -final-test, once, when every seed's runs are done
cd /work/main
D=/work/models/study5
go build -buildvcs=auto -o $D/sqlrl-final ./cmd/sqlrl
echo "final-test start $(date -u +%FT%TZ) binary $(go version -m $D/sqlrl-final | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
{ time $D/sqlrl-final experiment study -config docs/studies/v2-recipe-session.json -final-test -threads 2 data/bench-v2 > $D/final.log 2> $D/final.err ; } 2> $D/final-time.txt
rc=$?  # before any command substitution resets $?
echo "final-test end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
