import json,sys,collections
d=json.load(open(sys.argv[1]))
nodes={n['id']:n for n in d['nodes']}
self_t=collections.Counter()
dt=d['timeDeltas']; samples=d['samples']
for s,t in zip(samples,dt): self_t[s]+=t
# aggregate self by function+url
agg=collections.Counter()
for nid,t in self_t.items():
    cf=nodes[nid]['callFrame']; agg[(cf['functionName'],cf['url'].split('node_modules/')[-1][:70],cf['lineNumber'])]+=t
tot=sum(agg.values())
for k,v in agg.most_common(25): print(f"{v/tot*100:5.1f}% {k}")
# inclusive by package
parent={}
for n in d['nodes']:
    for c in n.get('children',[]): parent[c]=n['id']
pkg=collections.Counter()
for nid,t in self_t.items():
    seen=set(); x=nid
    while x is not None:
        u=nodes[x]['callFrame']['url']
        p=u.split('node_modules/')[1].split('/')[0] if 'node_modules/' in u else ('project:'+u.split('/main/')[-1].split('/')[0] if '/main/' in u else None)
        if p and p.startswith('@'): p='/'.join(u.split('node_modules/')[1].split('/')[:2])
        if p and p not in seen: seen.add(p); pkg[p]+=t
        x=parent.get(x)
print('--- inclusive by package')
for k,v in pkg.most_common(20): print(f"{v/tot*100:5.1f}% {k}")
print('--- inclusive by function')
fn=collections.Counter()
for nid,t in self_t.items():
    seen=set(); x=nid
    while x is not None:
        cf=nodes[x]['callFrame']; k=(cf['functionName'],cf['url'].split('node_modules/')[-1].split('/main/')[-1][:60],cf['lineNumber'])
        if k not in seen: seen.add(k); fn[k]+=t
        x=parent.get(x)
for k,v in fn.most_common(60):
    if v/tot>0.02: print(f"{v/tot*100:5.1f}% {k}")
