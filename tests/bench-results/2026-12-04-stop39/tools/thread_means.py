#!/usr/bin/env python3
"""Mean CPU-s a minute over minutes 3-10 of some threads, from threadcpu.py tables (stop 38 tools).

usage: thread_means.py RUN/threads-by-minute.txt ...
"""
import sys
for f in sys.argv[1:]:
    lines=open(f).read().splitlines()
    h=lines[0]; names=[h[3+13*i:3+13*(i+1)].strip() for i in range((len(h)-3)//13)]
    rows=[l for l in lines[1:] if l.strip() and l.split()[0].isdigit() and 3<=int(l.split()[0])<=10]
    out=[]
    for want in ['delta-writer','delta-commit','batch cut (s','GC Thread','C CompilerTh','delta-log-ba']:
        if want in names:
            i=names.index(want); vals=[float(r[3+13*i:3+13*(i+1)]) for r in rows]
            out.append('%s %.1f'%(want,sum(vals)/len(vals)))
    print(f.split('/')[-2], ' | '.join(out))
