#!/bin/bash
# feedback-halves-main-replication.md (seeds 4-8), normal priority
cd /work/main
D=/work/models/ktofix
echo "replication start $(date -u +%FT%TZ) binary $(go version -m bin/sqlrl | awk -F= '/vcs.revision/{print substr($2,1,12)}')" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell bin/sqlrl experiment feedback-halves -train sft -sft-lr 1e-4 -sft-epochs 4 \
  -model out/specialise/flywheel/runs/sft-79abc386615f/train \
  -questions datasets/bird-dev-sample/dev.json -seeds 4,5,6,7,8 -out out/feedback-halves-main-s45678 > $D/rep.log 2> $D/rep.err
rc=$?
echo "replication end $(date -u +%FT%TZ) rc $rc" >> $D/meta.txt
