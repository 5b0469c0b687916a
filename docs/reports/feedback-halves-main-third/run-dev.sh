#!/bin/bash
# feedback-halves-main-third.md: the dev arms (resumable: the same command reads finished runs back)
cd /work/main
B=/work/models/fh3/sqlrl
M=out/specialise/flywheel/runs/sft-79abc386615f/train
go run docs/studies/feedback-halves-main-third/general-dev.go out/specialise/data 5 out/general-dev.json 2>> /work/models/fh3/meta.txt
sha256sum out/general-dev.json >> /work/models/fh3/meta.txt
dev() { OPENBLAS_CORETYPE=Haswell $B experiment feedback-halves -model $M -questions out/general-dev.json \
  -db-root out/specialise/data/train_databases -seeds 1,2,3 -threads 1 "$@"; }
for arm in A B C D E; do
  case $arm in
    A) f="-train sft -sft-lr 1e-4 -sft-epochs 4";;
    B) f="-train sft -sft-lr 2e-4 -sft-epochs 4";;
    C) f="-train sft -sft-lr 1e-4 -sft-epochs 8";;
    D) f="-train sft -sft-lr 2e-4 -sft-epochs 8";;
    E) f="-train kto";;
  esac
  echo "$arm start $(date -u +%FT%TZ) $f" >> /work/models/fh3/meta.txt
  dev $f -out out/fh3-dev-$arm > /work/models/fh3/dev-$arm.log 2> /work/models/fh3/dev-$arm.err
  rc=$?
  echo "$arm end $(date -u +%FT%TZ) rc $rc" >> /work/models/fh3/meta.txt
done
