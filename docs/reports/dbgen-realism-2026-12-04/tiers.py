import json,sys
d=json.load(open(sys.argv[1]))
bird=[x for x in d if x['dir'].rstrip('/').endswith('bird-dev-sample')][0]
gen=[x for x in d if x is not bird][0]
feat=[("JOIN","join"),("nested","subquery"),("CASE","case"),("CAST","cast"),("arithmetic","arithmetic"),("multi-column answer",None),("GROUP BY","group_by"),("ORDER BY + LIMIT","order_by_limit")]
def val(t,k):
    if k is None: return 1-t['answers']['one_column']
    return t['features'][k]
b={t['tier']:t for t in bird['splits'][0]['tiers']}
for sp in gen['splits']:
    print("\n### %s (%d questions) against the BIRD sample's dev (%d)\n"%(sp['name'],sp['questions'],bird['splits'][0]['questions']))
    print("| tier (generated / BIRD questions) | feature | generated | BIRD sample | gap (points) |\n|---|---|---:|---:|---:|")
    off=0
    for t in sp['tiers']:
        bt=b[t['tier']]
        for lab,k in feat:
            g,r=100*val(t,k),100*val(bt,k)
            gap=g-r; flag=" (over 5)" if abs(gap)>5 else ""
            off+=abs(gap)>5
            print("| %s (%d / %d) | %s | %.1f%% | %.1f%% | %+.1f%s |"%(t['tier'],t['questions'],bt['questions'],lab,g,r,gap,flag))
    print("\n%d of %d shares more than 5 points off"%(off,len(sp['tiers'])*len(feat)))
