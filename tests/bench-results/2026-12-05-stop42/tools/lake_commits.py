#!/usr/bin/env python3
"""A lake's Delta commits by kind (engineInfo suffix: data, compaction, replace), and orphan
data files (on disk, never added by any commit: the writes of abandoned compactions)."""
import json, os, sys, collections
from urllib.parse import unquote
root = sys.argv[1]
kinds = collections.Counter(); adds = collections.Counter(); tables = 0; logs = 0; orphans = 0; orphan_bytes = 0; cleaned = 0
for d, subdirs, files in os.walk(root):
    if '_delta_log' not in subdirs:
        continue
    tables += 1
    log = os.path.join(d, '_delta_log')
    lf = os.listdir(log); logs += len(lf)
    versions = sorted(int(f[:20]) for f in lf if f.endswith('.json') and f[:20].isdigit())
    if versions and versions[0] > 0:
        cleaned += versions[0]
    added = set()
    for v in versions:
        kind = '?'; a = 0
        with open(os.path.join(log, '%020d.json' % v)) as fh:
            for line in fh:
                o = json.loads(line)
                if 'commitInfo' in o:
                    e = o['commitInfo'].get('engineInfo', '')
                    kind = 'compaction' if e.endswith(' compaction') else 'replace' if e.endswith(' replace') else 'data'
                elif 'add' in o:
                    a += 1; added.add(unquote(o['add']['path']))
        kinds[kind] += 1; adds[kind] += a
    for dd, _, ff in os.walk(d):
        if '_delta_log' in dd:
            continue
        for f in ff:
            if f.endswith('.parquet'):
                rel = os.path.relpath(os.path.join(dd, f), d)
                if rel not in added:
                    orphans += 1; orphan_bytes += os.path.getsize(os.path.join(dd, f))
    subdirs[:] = [s for s in subdirs if s != '_delta_log']
print(f"{root}: tables {tables}, log files {logs}, commits " + ", ".join(f"{k} {kinds[k]} (+{adds[k]} files)" for k in sorted(kinds)) + f", orphan data files {orphans} ({orphan_bytes/1e6:.1f} MB)" + (f", {cleaned} early commits cleaned" if cleaned else ""))
