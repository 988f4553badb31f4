import json,sys,os,glob,collections
root=sys.argv[1]
for t in sorted(glob.glob(root+'/tenant-0/*/*/_delta_log')):
    ops=collections.Counter(); rem=collections.Counter(); add=collections.Counter(); nver=0
    live={}
    for f in sorted(glob.glob(t+'/*.json')):
        nver+=1
        op='?'; a=r=0
        acts=[json.loads(l) for l in open(f)]
        for o in acts:
            if 'commitInfo' in o: op=o['commitInfo'].get('operation','?')
        for o in acts:
            if 'add' in o: add[op]+=o['add']['size']; live[o['add']['path']]=o['add']['size']
            if 'remove' in o: rem[op]+=o['remove'].get('size') or 0; live.pop(o['remove']['path'],None)
        ops[op]+=1
    print(t.split('lake-')[1], 'versions',nver, dict(ops))
    print('   added MB by op', {k:round(v/1e6,1) for k,v in add.items()}, ' removed MB', {k:round(v/1e6,1) for k,v in rem.items()})
    print('   live files', len(live), 'live MB', round(sum(live.values())/1e6,2))
