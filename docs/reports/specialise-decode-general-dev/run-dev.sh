#!/bin/bash
# specialise-decode-general-dev.md, dev arms (the config's commands; -threads 1 beside the B(3) piece 2 study)
cd /work/main
D=/work/models/decode
B=$D/sqlrl
echo "dev start $(date -u +%FT%TZ) binary $(go version -m $B | awk -F= '/vcs.revision/{print substr($2,1,12)}') threads 1" >> $D/meta.txt
for s in 1 2 3; do
  OPENBLAS_CORETYPE=Haswell $B specialise -db datasets/bird-dev-sample/dev_databases/superhero/superhero.sqlite \
    -db datasets/bird-dev-sample/dev_databases/student_club/student_club.sqlite -general bird-train -tokenizer-own \
    -questions datasets/bird-dev-sample/dev.json -seed $s -out out/specialise-kto-fix-s$s > $D/spec-s$s.log 2>&1
  echo "specialise s$s rc $? $(sha256sum out/specialise-kto-fix-s$s/general-dev.json)" >> $D/meta.txt
done
mkdir -p out/decode-dev out/decode-test
M1=out/specialise-kto-fix-s1/flywheel/runs/rl-8aa8c260aa48/train
M2=out/specialise-kto-fix-s2/flywheel/runs/rl-01e2d59077f9/train
M3=out/specialise-kto-fix-s3/flywheel/runs/rl-59633dde9c34/train
for s in 1 2 3; do eval M=\$M$s; O=out/specialise-kto-fix-s$s
  for arm in "A 8 1" "B 16 1" "C 8 0.7"; do set -- $arm
    [ -f out/decode-dev/s$s-$1.json ] && continue
    t0=$(date +%s)
    OPENBLAS_CORETYPE=Haswell $B score -model $M -questions $O/general-dev.json -db-root $O/data/train_databases \
      -vote $2 -vote-temperature $3 -json out/decode-dev/s$s-$1.json -threads 1 -q > $D/s$s-$1.log 2> $D/s$s-$1.err
    rc=$?
    echo "s$s $1 rc $rc $(( $(date +%s) - t0 )) s $(tail -1 $D/s$s-$1.log | grep -o 'EX [0-9.]*%')" >> $D/meta.txt
  done
done
echo "dev end $(date -u +%FT%TZ)" >> $D/meta.txt
