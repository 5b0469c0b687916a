#!/bin/bash
# feedback-halves-main.md, after run1.sh (specialise-kto-human seed 1) ends; nice 19 in its own autogroup
cd /work/main
echo 19 > /proc/self/autogroup 2>/dev/null
D=/work/models/ktofix
while pgrep -f "specialise-kto-fix-s1" > /dev/null; do sleep 15; done
echo "halves start $(date -u +%FT%TZ) binary $(go version -m $D/sqlrl | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell nice -n 19 $D/sqlrl experiment feedback-halves -train sft -sft-lr 1e-4 -sft-epochs 4 \
  -model out/specialise/flywheel/runs/sft-79abc386615f/train \
  -questions datasets/bird-dev-sample/dev.json -out out/feedback-halves-main > $D/halves.log 2> $D/halves.err
rc=$?  # before any command substitution resets $?
echo "halves end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
