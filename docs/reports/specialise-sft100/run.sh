#!/bin/bash
# specialise-sft100 (docs/studies/specialise-sft100.md): seed 1's SFT-100 beside the reused SFT-75 and KTO
cd /work/main
D=/work/models/sft100
B=$D/sqlrl
dbs=datasets/bird-dev-sample/dev_databases
echo "start $(date -u +%FT%TZ) binary $(go version -m $B | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell /usr/bin/time -v $B specialise -db $dbs/superhero/superhero.sqlite -db $dbs/student_club/student_club.sqlite \
  -general bird-train -tokenizer-own -seed 1 -sft100 -out out/specialise-sft100-s1 > $D/spec.log 2> $D/spec.err
rc=$?
echo "specialise end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
