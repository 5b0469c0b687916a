#!/usr/bin/env bash
# The main job on the bundled data, on a fresh machine: your database to
# your model, measured on questions humans wrote.
#  1. build sqlrl (installing gcc, SQLite headers and OpenBLAS if missing);
#  2. sqlrl specialise over the bundled BIRD sample's two databases
#     (superhero, student_club): verified questions generated over their
#     own schemas and values, SFT on them and on BIRD's human train
#     questions over other databases (-general bird-train, with the
#     tokenizer learnt from the generated questions alone: the best
#     setting on the synthetic dev split, docs/results.md row 29; about an
#     hour on 2 cores, half an hour a database), online KTO rewarded by execution, both
#     models on a synthetic dev split, the served one also answering by a
#     vote of its samples, a serve.json for 'sqlrl serve';
#  3. last, both models (and the served one by vote) on the sample's 287
#     human questions (BIRD dev, never trained on, read once and counted):
#     EX by difficulty.
# The report is OUT/report.md (default out/specialise); running it again
# resumes, reusing every finished stage. Arguments go to specialise (e.g.
# scripts/demo.sh -quick to test the machinery in seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
go build -buildvcs=auto -o bin/sqlrl ./cmd/sqlrl
out=${OUT:-out/specialise}
dbs=datasets/bird-dev-sample/dev_databases
bin/sqlrl specialise -db "$dbs/superhero/superhero.sqlite" -db "$dbs/student_club/student_club.sqlite" \
	-general bird-train -tokenizer-own -questions datasets/bird-dev-sample/dev.json -out "$out" "$@"
