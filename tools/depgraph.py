#!/usr/bin/env python3
"""depgraph.py -- who calls whom, read from the object files, and who
includes whom, read from the sources.

Reads the symbols each object file defines and needs (`nm`), links every
undefined symbol to the object that defines it, and prints

  - the folders' dependency graph (src/world -> src/base, ...) and any
    cycle in it: a folder that needs another which needs it back;
  - inside each folder, the groups of objects that call each other in a
    cycle (strongly connected components), largest first.

With --check it exits 1 when the folder graph has a cycle, when a folder
holds an object cycle that the allow file does not list, when an object
of a --forbid folder uses a symbol of a folder it may not, or when a
folder needs one above it in the allow file's layer order.

With --includes ROOT it also reads every #include "x.h" of ROOT/src/*/*
and ROOT/ui/* (.c and .h), resolved as the compiler resolves it (the
includer's folder, then src/, then each src folder), and reports each one
that points up a layer: a header hands over macros, types and inline
functions that nm never sees.

The allow file: one allowed object cycle per line, its objects' base names
separated by spaces; a line "layers: F1 F2 ..." gives the folders' order,
lowest first (a folder may use and include its own layer and those below
it, never one above); '#' starts a comment.

Objects are grouped by the directory they were built in, so the graph
follows the source tree.
"""
import argparse
import glob
import os
import re
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


def check_objects(objs, allow, layers, forbid):
    """Print the folder graph and the object cycles; count what is not
    allowed: a folder cycle, a forbidden use, a use that points up a
    layer, an object cycle not in allow."""
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
    if layers:
        rank = {l: i for i, l in enumerate(layers)}
        for f in folders:
            for t in sorted(fedges[f]):
                if f not in rank or t not in rank:
                    print(f"UNLAYERED: {f} -> {t} "
                          f"({f if f not in rank else t} has no layer)")
                    bad += 1
                elif rank[t] > rank[f]:
                    syms = sorted({s for o in objs if folder[o] == f
                                   for s in needs[o]
                                   if definer.get(s) is not None and
                                   folder[definer[s]] == t})
                    print(f"UPWARD: {f} needs {t}, a layer above it "
                          f"({', '.join(syms[:5])})")
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
    return bad


def read_allow(path):
    """The allowed cycles (a set of frozensets) and the layer order."""
    allow, layers = set(), []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line.startswith("layers:"):
                layers = [l.rstrip("/") for l in line[7:].split()]
            elif line:
                allow.add(frozenset(line.split()))
    return allow, layers


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def source_files(root):
    """The sources of the tree: src/<folder>/*.[ch] and ui/*.[ch]."""
    files = sorted(glob.glob(os.path.join(root, "src", "*", "*.[ch]")) +
                   glob.glob(os.path.join(root, "ui", "*.[ch]")))
    return [f for f in files if os.path.isfile(f)]


def include_edges(root):
    """(includer, included, folder of includer, folder of included) for
    every #include "x.h" that resolves to a file of the tree."""
    src = os.path.join(root, "src")
    folders = sorted(d for d in glob.glob(os.path.join(src, "*"))
                     if os.path.isdir(d))
    out = []
    for f in source_files(root):
        here = os.path.dirname(f)
        with open(f, errors="replace") as fh:
            names = INCLUDE.findall(fh.read())
        for name in names:
            for d in [here, src] + folders:
                target = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(target):
                    break
            else:
                continue        # config.h, generated or system: not ours
            out.append((os.path.relpath(f, root),
                        os.path.relpath(target, root),
                        os.path.relpath(here, root),
                        os.path.relpath(os.path.dirname(target), root),
                        name))
    return out


def check_includes(root, layers):
    """Print and count the includes that point up a layer."""
    rank = {l: i for i, l in enumerate(layers)}
    bad = 0
    for f, target, src, dst, name in include_edges(root):
        if src == dst:
            continue
        if "/" not in name:
            # another folder's header names its folder: "world/world.h"
            print(f"UNQUALIFIED INCLUDE: {f} includes \"{name}\" "
                  f"(write \"{os.path.relpath(target, os.path.join(root, 'src'))}\")")
            bad += 1
            continue
        if src not in rank or dst not in rank:
            print(f"UNLAYERED: {f} includes {target} "
                  f"({src if src not in rank else dst} has no layer)")
            bad += 1
        elif rank[dst] > rank[src]:
            print(f"UPWARD INCLUDE: {f} includes {target} "
                  f"({src} is below {dst})")
            bad += 1
    return bad


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="depgraph.py",
        description="Who calls whom (nm over the object files) and who "
        "includes whom (the sources), checked against the folders' layers "
        "and the allowed object cycles.",
        epilog="Example: depgraph.py --check --allow tools/depgraph.allow "
        "--includes . --forbid ui=src/lang,src/fs src/*/*.o ui/*.o")
    p.add_argument("objects", nargs="*", metavar="OBJECT",
                   help="object files, grouped by the folder they are in")
    p.add_argument("--check", action="store_true",
                   help="exit 1 on a folder cycle, an object cycle the allow "
                   "file does not list, a forbidden use, or a use or "
                   "include that points up a layer")
    p.add_argument("--allow", metavar="FILE",
                   help="the allowed object cycles and the layer order "
                   "('layers: F1 F2 ...', lowest first)")
    p.add_argument("--forbid", action="append", default=[],
                   metavar="FOLDER=F1,F2",
                   help="objects of FOLDER may use no symbol of F1 or F2 "
                   "(repeatable; e.g. ui=src/lang,src/fs)")
    p.add_argument("--includes", metavar="ROOT",
                   help="also check every #include \"x.h\" under "
                   "ROOT/src and ROOT/ui against the layers")
    a = p.parse_args(argv)
    if not a.objects and a.includes is None:
        p.error("give object files, --includes ROOT, or both")
    return a


def main(argv):
    a = parse_args(argv)
    allow, layers = read_allow(a.allow) if a.allow else (set(), [])
    forbid = []
    for spec in a.forbid:
        src, _, dsts = spec.partition("=")
        forbid.append((src.rstrip("/"),
                       {d.rstrip("/") for d in dsts.split(",") if d}))
    bad = check_objects(a.objects, allow, layers, forbid) if a.objects else 0
    if a.includes is not None:
        if not layers:
            print("--includes needs the layer order (--allow FILE with a "
                  "'layers:' line)", file=sys.stderr)
            return 2
        n = check_includes(a.includes, layers)
        print(f"includes: {'none' if n == 0 else n} pointing up a layer")
        bad += n
    if a.check and bad:
        print(f"{bad} cycle(s), use(s) or include(s) not allowed",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
