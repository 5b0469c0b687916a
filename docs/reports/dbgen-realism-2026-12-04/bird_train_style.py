import json,re,collections
import sys
d=json.load(open(sys.argv[1]))
n=len(d)
first=collections.Counter()
for x in d:
    q=x['question'].strip()
    w=q.split()
    k=w[0].strip(',').lower() if w else ''
    if k in('how','what','which','who','please','among','list','give','name','state','calculate','find','indicate','provide','in','for','of','when','where','is','identify','count','describe','mention','tell','from','between','compute','show','write','sum','on'):
        if k in ('how','what') and len(w)>1: k=k+' '+w[1].lower()
    else: k='other'
    first[k]+=1
print("openings:",[(k,round(100*v/n,1)) for k,v in first.most_common(25)])
def selcols(sql):
    s=sql.strip()
    m=re.match(r'(?is)select\s+(distinct\s+)?(.*?)\s+from\s',s)
    if not m: return 1
    body=m.group(2); depth=0; c=1
    for ch in body:
        if ch=='(':depth+=1
        elif ch==')':depth-=1
        elif ch==',' and depth==0:c+=1
    return c
multi=sum(selcols(x['SQL'])>1 for x in d)
print("multi-column select: %.1f%%"%(100*multi/n))
def joins(s): return len(re.findall(r'(?i)\bjoin\b',s))
nested=lambda s: len(re.findall(r'(?i)\(\s*select\b',s))>0
for lab,f in [("0 joins",lambda s:joins(s)==0),("1 join",lambda s:joins(s)==1),("2 joins",lambda s:joins(s)==2),("3+ joins",lambda s:joins(s)>=3),("nested",nested)]:
    sub=[x for x in d if f(x['SQL'])]
    print(lab, len(sub), "multi %.1f%%"%(100*sum(selcols(x['SQL'])>1 for x in sub)/max(1,len(sub))))
two=sum(1 for x in d if re.search(r'[?.]\s+\S',x['question'].strip()))
print("two sentences: %.1f%%"%(100*two/n))
ev=[x['evidence'].strip() for x in d]
print("evidence empty %.1f%%, has 'refers to' %.1f%%, has 'means' %.1f%%, has ' is ' mapping %.1f%%, DIVIDE %.1f%%, MULTIPLY %.1f%%, SUBTRACT %.1f%%, MAX( %.1f%%, ends with ; %.1f%%"%tuple(100*sum(f(e) for e in ev)/n for f in [lambda e:e=='',lambda e:'refers to' in e.lower(),lambda e:' means ' in e.lower(),lambda e:bool(re.search(r"\bis \w+_\w+",e)),lambda e:'DIVIDE' in e.upper(),lambda e:'MULTIPLY' in e.upper(),lambda e:'SUBTRACT' in e.upper(),lambda e:'MAX(' in e.upper(),lambda e:e.endswith(';')]))
print("evidence clauses per question (split ;): %.2f"%(sum(len([c for c in e.split(';') if c.strip()]) for e in ev)/n))
S=[x['SQL'] for x in d]
def share(rx): return 100*sum(1 for s in S if re.search(rx,s))/n
print("month/day filters (strftime %%m / SUBSTR(date,6,2) / LIKE 'YYYY-MM%%'): %.1f%%"%share(r"(?i)strftime\('%m|strftime\('%Y-%m|substr\([^)]*,\s*6\s*,\s*2\)|LIKE\s+'\d{4}-\d{2}"))
print("year filters (strftime %%Y / SUBSTR(..,1,4) / LIKE 'YYYY%%'): %.1f%%"%share(r"(?i)strftime\('%Y'|substr\([^)]*,\s*1\s*,\s*4\)|LIKE\s+'\d{4}%'"))
print("date range (BETWEEN 'YYYY' / date >/< 'YYYY-'): %.1f%%"%share(r"(?i)between\s+'\d{4}|[<>]=?\s*'\d{4}-"))
print("flag filters (= 1 / = 0 / = 'Y' / 'N' / 'TRUE' 'FALSE'): %.1f%%"%share(r"(?i)=\s*(0|1|'Y'|'N'|'yes'|'no'|'true'|'false')\b(?!\.)(?!\d)"))
print("evidence mapping a flag (\"= 1 means\" / \"= 'Y'\"): %.1f%%"%(100*sum(1 for e in ev if re.search(r"(?i)=\s*(1|0|'Y'|'N'|'TRUE'|'FALSE')\b",e))/n))
print("ORDER BY LIMIT 1: %.1f%%, LIMIT>1 %.1f%%, GROUP BY %.1f%%, CASE %.1f%%, CAST %.1f%%, COUNT %.1f%%, DISTINCT %.1f%%, LIKE %.1f%%, OR %.1f%%"%(share(r"(?i)limit\s+1\b"),share(r"(?i)limit\s+([2-9]|\d\d)"),share(r"(?i)group by"),share(r"(?i)\bcase\b"),share(r"(?i)\bcast\("),share(r"(?i)count\("),share(r"(?i)distinct"),share(r"(?i)\blike\b"),share(r"(?i)\bor\b")))
KW=set("select from where and or not in as on join inner left group by order having limit desc asc count sum avg max min distinct cast real case when then else end is null like between integer text union exists iif substr strftime length round".split())
tot=hit=0
for x in d:
    s=x['SQL']; q=x['question'].lower()
    tabs=set(t.lower() for t in re.findall(r'(?i)(?:from|join)\s+`?(\w+)',s))
    body=re.sub(r"'[^']*'","",s)
    cols=set()
    for m in re.findall(r'T\d+\.`([^`]+)`|T\d+\.(\w+)|`([^`]+)`|\b([A-Za-z_]\w*)\b',body):
        c=next(v for v in m if v)
        if c.lower() in KW or c.lower() in tabs or re.fullmatch(r'T\d+',c): continue
        cols.add(c.lower())
    for c in cols:
        tot+=1
        lab=re.sub(r'[_ ]+',' ',c).strip()
        if lab in q: hit+=1
print("gold column identifiers whose name, split at _, appears verbatim in the question: %.1f%% of %d"%(100*hit/tot,tot))
