#!/usr/bin/env python3
"""depgraph.py -- who calls whom, read from the object files.

Reads the symbols each object file defines and needs (`nm`), links every
undefined symbol to the object that defines it, and prints

  - the folders' dependency graph (src/world -> src/base, ...) and any
    cycle in it: a folder that needs another which needs it back;
  - inside each folder, the groups of objects that call each other in a
    cycle (strongly connected components), largest first.

Usage: depgraph.py [--check] [--allow FILE] [--forbid FOLDER=F1,F2] OBJECT...

With --check it exits 1 when the folder graph has a cycle, or when a
folder holds an object cycle that FILE does not list (FILE: one cycle per
line, its objects' base names separated by spaces; '#' starts a comment),
or when an object in FOLDER uses a symbol that an object in F1 or F2
defines (--forbid, repeatable: "ui=src/lang,src/fs", the UI renders
records and parses nothing).  Those allowed cycles are the interpreter's
own recursion (eval calls the object model, which calls eval for eval()).
Objects are grouped by the directory they were built in, so the graph
follows the source tree.
"""
import os
import subprocess
import sys
from collections import defaultdict


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj],
                         capture_output=True, text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3}
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True,
                         check=True).stdout
    needed = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, needed


def name_of(obj):
    """ui/sandboxrepl-main.o -> main; src/world/zygote.o -> zygote."""
    base = os.path.basename(obj)[:-2]
    return base.split("-", 1)[1] if "-" in base else base


def sccs(nodes, edges):
    """Tarjan's algorithm, iterative: the strongly connected components."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def main(argv):
    check, allow, objs, forbid = False, set(), [], []
    args = iter(argv)
    for a in args:
        if a == "--check":
            check = True
        elif a == "--forbid":
            src, _, dsts = next(args).partition("=")
            forbid.append((src.rstrip("/"),
                           {d.rstrip("/") for d in dsts.split(",") if d}))
        elif a == "--allow":
            with open(next(args)) as f:
                for line in f:
                    line = line.split("#", 1)[0].split()
                    if line:
                        allow.add(frozenset(line))
        else:
            objs.append(a)
    if not objs:
        print(__doc__, file=sys.stderr)
        return 2
    definer, needs = {}, {}
    for o in objs:
        d, n = symbols(o)
        needs[o] = n
        for s in d:
            definer.setdefault(s, o)
    edges = defaultdict(set)
    for o in objs:
        for s in needs[o]:
            t = definer.get(s)
            if t is not None and t != o:
                edges[o].add(t)
    folder = {o: os.path.dirname(o) or "." for o in objs}
    fedges = defaultdict(set)
    for o, ts in edges.items():
        for t in ts:
            if folder[o] != folder[t]:
                fedges[folder[o]].add(folder[t])
    folders = sorted(set(folder.values()))

    bad = 0
    print("folders and what they need:")
    for f in folders:
        print(f"  {f} -> {', '.join(sorted(fedges[f])) or '(nothing)'}")
    for comp in sccs(folders, fedges):
        if len(comp) > 1:
            print(f"FOLDER CYCLE: {' <-> '.join(comp)}")
            bad += 1
    for src, dsts in forbid:
        for o in objs:
            if folder[o] != src:
                continue
            for sym in sorted(needs[o]):
                t = definer.get(sym)
                if t is not None and folder[t] in dsts:
                    print(f"FORBIDDEN: {o} uses {sym} from {t} "
                          f"({src} may not need {', '.join(sorted(dsts))})")
                    bad += 1
    for f in folders:
        inner = [o for o in objs if folder[o] == f]
        iedges = defaultdict(set)
        for o in inner:
            iedges[o] = {t for t in edges[o] if folder[t] == f}
        for comp in sorted(sccs(inner, iedges), key=len, reverse=True):
            if len(comp) < 2:
                continue
            names = frozenset(name_of(o) for o in comp)
            known = names in allow
            print(f"{'allowed' if known else 'CYCLE'} in {f} ({len(comp)}): "
                  f"{' '.join(sorted(names))}")
            if not known:
                bad += 1
    if check and bad:
        print(f"{bad} cycle(s) or use(s) not allowed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
