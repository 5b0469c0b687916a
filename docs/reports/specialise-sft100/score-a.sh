#!/bin/bash
# After the rule (not met): A's synthetic dev by vote as `sqlrl score` writes it, for a paired B - A (no test read)
cd /work/main
D=/work/models/sft100
O=out/specialise-sft100-s1
R=docs/reports/specialise-sft100
echo "A dev vote (score) start $(date -u +%FT%TZ)" >> $D/meta.txt
OPENBLAS_CORETYPE=Haswell $D/sqlrl score -model $O/flywheel/runs/rl-8aa8c260aa48/train -questions $O/data/dev.json -db-root $O/data/dev_databases -vote 8 -json $R/dev-vote-served.json > $D/deva.log 2> $D/deva.err
echo "A dev vote (score) end $(date -u +%FT%TZ) rc $?" >> $D/meta.txt
