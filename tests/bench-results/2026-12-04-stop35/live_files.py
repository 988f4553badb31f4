import json, os, sys, glob
root = sys.argv[1]
for log in sorted(glob.glob(os.path.join(root, '**/_delta_log'), recursive=True)):
    table = os.path.relpath(os.path.dirname(log), root)
    if 'tenant-0' not in table: continue
    live = {}
    for f in sorted(glob.glob(os.path.join(log, '*.json'))):
        for line in open(f):
            a = json.loads(line)
            if 'add' in a: live[a['add']['path']] = a['add']['size']
            elif 'remove' in a: live.pop(a['remove']['path'], None)
    n0 = os.path.basename(sorted(glob.glob(os.path.join(log, '*.json')))[0])
    print(f"{table}: live {len(live)} files, {sum(live.values())/1e6:.1f} MB (first json {n0})")
