#!/usr/bin/env bash
# The production flywheel, measured: feedback given through `sqlrl serve`'s
# API becomes the training records of `sqlrl train kto`, and a short offline
# run on them is scored on the questions that got the feedback and on dev.
#
#   scripts/feedback-flywheel.sh [SFT_CHECKPOINT] [WORK_DIR]
#
# SFT_CHECKPOINT (default /tmp/fw/sft75) is an SFT-75 run or checkpoint of
# `sqlrl train sft` on the bundled benchmark data/bench (made with `sqlrl
# bench generate --preset small` when missing). Environment: N (questions,
# default 200), STEPS (offline KTO steps, default 100), PROMPTS (questions a
# step, default 8), LR (default 2e-5, RL's), PORT (default 18080), BENCH
# (default data/bench), SEED (the offline run's draws, default 1).
#
#  1. The split -init used: `sqlrl data prepare` with the checkpoint's split
#     seed and SFT fraction (its config's notes) writes holdout.jsonl, the
#     25% RL holdout SFT never saw; the first N of its questions by
#     question_id are the users' questions.
#  2. `sqlrl serve` over their databases (train_databases), the native
#     generator = the checkpoint, an API key; each question is asked once
#     through POST /api/ask.
#  3. The user: every served SQL is scored against the gold by `sqlrl eval`
#     (BIRD EX, the same verdict as the table's); right -> thumbs up, wrong
#     -> thumbs down with the gold SQL as the correction (the server runs it
#     read-only before storing it).
#  4. The server stops; `sqlrl data from-feedback` exports the store;
#     `sqlrl train kto -online=false -offline rollouts.jsonl -questions
#     feedback.json -db-root train_databases` trains STEPS steps.
#  5. Greedy guided EX (`sqlrl generate` + `sqlrl eval`) before and after, on
#     the N questions (a BIRD-layout folder of them with their gold) and on
#     all of dev; the table is printed and written to WORK_DIR/table.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ck=${1:-/tmp/fw/sft75}
work=${2:-out/feedback-flywheel}
n=${N:-200}
steps=${STEPS:-100}
prompts=${PROMPTS:-8}
lr=${LR:-2e-5}
seed=${SEED:-1}
port=${PORT:-18080}
bench=${BENCH:-data/bench}
py=${PYTHON:-python3}

mkdir -p "$work"
work=$(cd "$work" && pwd)
ck=$(cd "$ck" && pwd)
bin=$work/sqlrl
go build -buildvcs=auto -o "$bin" ./cmd/sqlrl
if [ ! -f "$bench/train.json" ]; then
	"$bin" bench generate --preset small -out "$bench"
fi
dbroot=$(cd "$bench/train_databases" && pwd)
log() { echo "== $(date -u +%H:%M:%S) $*" >&2; }

# 1. the holdout of the checkpoint's split, and the N questions
read -r frac splitseed < <("$py" - "$ck" <<'PY'
import json, os, sys
d = sys.argv[1]
if os.path.exists(os.path.join(d, 'latest')):
    d = os.path.join(d, open(os.path.join(d, 'latest')).read().strip())
notes = json.load(open(os.path.join(d, 'config.json'))).get('notes', {})
print(notes.get('sft_fraction', '0.75'), notes.get('split_seed', '1'))
PY
)
log "split: sft fraction $frac, seed $splitseed"
"$bin" data prepare -q -out "$work/prep" -seed "$splitseed" -sft-fraction "$frac" -augment 1 -examples 0 "$bench" >/dev/null
mkdir -p "$work/q"
ln -sfn "$dbroot" "$work/q/fb_databases"
"$py" - "$work" "$bench" "$n" <<'PY'
import json, sys
work, bench, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
hold = {json.loads(l)['question_id'] for l in open(work + '/prep/holdout.jsonl') if l.strip()}
train = {r['question_id']: r for r in json.load(open(bench + '/train.json'))}
qs = [train[q] for q in sorted(hold)][:n]
if len(qs) < n:
    sys.exit('the holdout has %d questions, fewer than N=%d' % (len(qs), n))
json.dump(qs, open(work + '/q/fb.json', 'w'), indent=1)
print('%d holdout questions, the first %d by question_id, on %d databases' % (len(hold), n, len({q['db_id'] for q in qs})), file=sys.stderr)
PY

# 2. the server
key=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
mkdir -p "$work/serve"
rm -f "$work/serve/feedback.sqlite"*
"$py" - "$work" "$dbroot" "$ck" "$key" <<'PY'
import json, sys
work, dbroot, ck, key = sys.argv[1:]
dbs = sorted({q['db_id'] for q in json.load(open(work + '/q/fb.json'))})
cfg = {'databases': {d: {'sqlite': '%s/%s/%s.sqlite' % (dbroot, d, d)} for d in dbs},
       'generator': {'native': ck, 'max_tokens': 256, 'timeout': '120s'},
       'store': 'feedback.sqlite', 'api_keys': {'flywheel': {'key': key}}}
json.dump(cfg, open(work + '/serve/serve.json', 'w'), indent=1)
PY
"$bin" serve -config "$work/serve/serve.json" -addr "127.0.0.1:$port" -quiet 2>"$work/serve/serve.log" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
	curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
	kill -0 $srv 2>/dev/null || { cat "$work/serve/serve.log" >&2; exit 1; }
	sleep 0.5
done
log "serving on 127.0.0.1:$port; asking $n questions"
"$py" - "$work" "$port" <<'PY'
import json, sys, urllib.request
work, port = sys.argv[1], sys.argv[2]
out = open(work + '/served.jsonl', 'w')
for q in json.load(open(work + '/q/fb.json')):
    body = json.dumps({'db': q['db_id'], 'question': q['question'], 'evidence': q['evidence']}).encode()
    req = urllib.request.Request('http://127.0.0.1:%s/api/ask' % port, body, {'Content-Type': 'application/json'})
    try:
        a = json.load(urllib.request.urlopen(req, timeout=300))
    except urllib.error.HTTPError as e:
        sys.exit('ask question %d: HTTP %d %s' % (q['question_id'], e.code, e.read()[:200]))
    out.write(json.dumps({'question_id': q['question_id'], 'answer_id': a['answer_id'], 'sql': a.get('sql', ''),
                          'error': (a.get('error') or {}).get('class', '')}) + '\n')
PY

# 3. the user's verdicts: served SQL against the gold, by sqlrl eval
"$bin" eval --data "$work/q" --split fb --pred "$work/served.jsonl" --verdicts "$work/served_verdicts.jsonl" \
	--json "$work/served_eval.json" --quiet >"$work/served_eval.txt"
"$py" - "$work" "$port" "$key" <<'PY'
import json, sys, urllib.request
work, port, key = sys.argv[1:]
gold = {q['question_id']: q['SQL'] for q in json.load(open(work + '/q/fb.json'))}
ans = {json.loads(l)['question_id']: json.loads(l) for l in open(work + '/served.jsonl')}
up = down = 0
for l in open(work + '/served_verdicts.jsonl'):
    v = json.loads(l)
    a = ans[v['question_id']]
    fb = {'verdict': 'up'} if v['correct'] else {'verdict': 'down', 'corrected_sql': gold[v['question_id']]}
    req = urllib.request.Request('http://127.0.0.1:%s/api/answers/%d/feedback' % (port, a['answer_id']), json.dumps(fb).encode(),
                                 {'Content-Type': 'application/json', 'Authorization': 'Bearer ' + key})
    r = json.load(urllib.request.urlopen(req, timeout=60))
    if not v['correct'] and r.get('correction') != 'ok':
        sys.exit('question %d: the gold did not validate as a correction: %s' % (v['question_id'], r))
    up, down = up + bool(v['correct']), down + (not v['correct'])
print('feedback: %d thumbs up, %d thumbs down with the gold as the correction' % (up, down), file=sys.stderr)
PY
kill $srv
wait $srv || true
trap - EXIT
log "server stopped; exporting the store"

# 4. the export and the offline run
"$bin" data from-feedback -store "$work/serve/feedback.sqlite" -out "$work/fb" -db-root "$dbroot"
log "offline KTO: $steps steps of $prompts questions"
"$bin" train kto -init "$ck" -online=false -offline "$work/fb/rollouts.jsonl" -questions "$work/fb/feedback.json" \
	-db-root "$dbroot" -out "$work/kto" -restart -steps "$steps" -prompts "$prompts" -lr "$lr" -seed "$seed" -eval-every -1 -q

# 5. before and after
score() { # model split dir name
	"$bin" generate -model "$1" -split "$2" -out "$work/$4.jsonl" "$3" >"$work/$4.gen.log" 2>&1
	"$bin" eval --data "$3" --split "$2" --pred "$work/$4.jsonl" --json "$work/$4.eval.json" --quiet >"$work/$4.eval.txt"
}
log "scoring before and after"
score "$ck" fb "$work/q" fb_before
score "$work/kto" fb "$work/q" fb_after
score "$ck" dev "$bench" dev_before
score "$work/kto" dev "$bench" dev_after
"$py" - "$work" "$n" "$steps" "$prompts" "$lr" "$seed" <<'PY' | tee "$work/table.md"
import json, sys
work, n, steps, prompts, lr, seed = sys.argv[1:]
def ex(name):
    r = json.load(open('%s/%s.eval.json' % (work, name)))
    return r['total']['accuracy'], r['total']['correct'], r['total']['count']
served = json.load(open(work + '/served_eval.json'))['total']
m = json.load(open(work + '/fb/manifest.json'))
print('| greedy guided EX | the %s questions with feedback | dev (all) |' % n)
print('|---|---|---|')
for label, a, b in (('SFT-75', 'fb_before', 'dev_before'), ('SFT-75 + offline KTO on the feedback, %s steps' % steps, 'fb_after', 'dev_after')):
    fa, fc, fn = ex(a)
    da, dc, dn = ex(b)
    print('| %s | %.2f (%d/%d) | %.2f (%d/%d) |' % (label, fa, fc, fn, da, dc, dn))
print()
print('served answers right (thumbs up): %d of %d (%.2f EX as served); export: %s' % (served['correct'], served['count'], served['accuracy'],
      ', '.join('%s %s' % (k, m[k]) for k in ('answers', 'questions', 'desirable', 'undesirable', 'dpo_pairs'))))
def verdicts(name):
    return {q['question_id']: q['correct'] for q in json.load(open('%s/%s.eval.json' % (work, name)))['questions']}
for part in ('fb', 'dev'):
    b, a = verdicts(part + '_before'), verdicts(part + '_after')
    print('%s: %d questions wrong before and right after, %d right before and wrong after' % (
        'the feedback questions' if part == 'fb' else 'dev', sum(a[q] and not b[q] for q in b), sum(b[q] and not a[q] for q in b)))
print('offline KTO: %s steps x %s questions, lr %s, seed %s' % (steps, prompts, lr, seed))
PY
