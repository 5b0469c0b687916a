#!/bin/bash
# specialise-kto-human.md, seed 1 (reuses out/specialise's SFT via the copy); nice 19 beside the v2 study
cd /work/main
echo 19 > /proc/self/autogroup 2>/dev/null  # nice only counts within an autogroup (setsid makes one)
D=/work/models/ktofix
DBS=datasets/bird-dev-sample/dev_databases
echo "s1 start $(date -u +%FT%TZ) binary $(go version -m $D/sqlrl | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell nice -n 19 $D/sqlrl specialise -db $DBS/superhero/superhero.sqlite -db $DBS/student_club/student_club.sqlite \
  -general bird-train -tokenizer-own -questions datasets/bird-dev-sample/dev.json -seed 1 -out out/specialise-kto-fix-s1 > $D/s1.log 2> $D/s1.err
rc=$?  # before any command substitution resets $?
echo "s1 end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
