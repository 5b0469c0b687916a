#!/bin/bash
# specialise-kto-human.md, seed 3, resumed at 2 threads once the machine was free (run3.sh began it at 1 thread beside other runs)
cd /work/main
echo 19 > /proc/self/autogroup 2>/dev/null
D=/work/models/ktofix
DBS=datasets/bird-dev-sample/dev_databases
s=3
echo "s$s start $(date -u +%FT%TZ) binary $(go version -m $D/sqlrl | awk -F= '/vcs.revision/{print substr($2,1,12)}') threads 2" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl specialise -db $DBS/superhero/superhero.sqlite -db $DBS/student_club/student_club.sqlite \
  -general bird-train -tokenizer-own -questions datasets/bird-dev-sample/dev.json -seed $s -out out/specialise-kto-fix-s$s > $D/s$s.log 2> $D/s$s.err
rc=$?
echo "s$s end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
