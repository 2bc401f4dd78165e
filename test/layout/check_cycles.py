#!/usr/bin/env python3
"""Check that the engine's and the PostgreSQL layer's files form no cycles
(ARCHITECTURE.md, "No cycles"), and that the layer sees the engine through
its one façade header.

Two graphs, each must be acyclic:
  1. includes: file -> each header it #includes "..." (src/engine, src/pg),
     resolved as the compiler resolves it (the file's folder, then the -I
     folders of the Makefile);
  2. calls: object file -> object file defining a symbol it uses (nm over
     the built src/engine/*/*.o and src/pg/*.o, src/pg/*/*.o; the GPU
     objects count when they are built).
A dispatcher that also served as a helper library shows up in graph 2 as a
cycle (dispatcher -> back-end -> dispatcher). And:
  3. the façade: a src/pg file includes no engine header but
     src/engine/exactgpu_engine.h;
  4. the engine calls nothing of the PostgreSQL layer.
The calls between families (folders) are printed too, for reading. Prints
each cycle or stray include found, with the edges that make it, and exits 1
if there is one.

Usage: python3 test/layout/check_cycles.py   (from the repository root)
"""
import collections
import glob
import os
import re
import subprocess
import sys


def sccs(graph):
    """Strongly connected components of more than one node (or a self-loop)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph[v]:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


FACADE = 'src/engine/exactgpu_engine.h'


def include_dirs():
    """The -I folders, in the Makefile's order (PG_CPPFLAGS, NVCC_FLAGS)."""
    return (['src/engine'] + sorted(d for d in glob.glob('src/engine/*') if os.path.isdir(d))
            + ['src/pg'] + sorted(d for d in glob.glob('src/pg/*') if os.path.isdir(d)))


def include_graph():
    files = sorted(glob.glob('src/engine/*.h') + glob.glob('src/engine/*/*.[ch]')
                   + glob.glob('src/engine/*/*.cu') + glob.glob('src/engine/*/*.cuh')
                   + glob.glob('src/pg/*.[ch]') + glob.glob('src/pg/*/*.[ch]'))
    dirs = include_dirs()
    graph = collections.defaultdict(set)
    for f in files:
        graph[f]
        with open(f, encoding='utf-8') as fh:
            for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', fh.read(), re.M):
                # PostgreSQL's and the system's headers resolve to none of ours
                for d in [os.path.dirname(f)] + dirs:
                    target = os.path.normpath(os.path.join(d, m.group(1)))
                    if os.path.isfile(target):
                        graph[f].add(target)
                        break
    return graph, {}


def facade_strays(graph):
    """src/pg files that include an engine header other than the façade."""
    bad = 0
    for f in sorted(graph):
        if not f.startswith('src/pg/'):
            continue
        for t in sorted(graph[f]):
            if t.startswith('src/engine/') and t != FACADE:
                print(f'  stray engine include: {f} -> {t} (include {FACADE} instead)')
                bad += 1
    return bad


def call_graph():
    objs = sorted(glob.glob('src/engine/*/*.o') + glob.glob('src/pg/*.o') + glob.glob('src/pg/*/*.o'))
    # an object left behind by a source since removed or renamed is not the code
    objs = [o for o in objs if os.path.exists(o[:-2] + '.c') or os.path.exists(o[:-2] + '.cu')]
    # gpu_absent.o stands in for the CUDA objects; with those built, it is not linked
    if any(os.path.exists(o[:-2] + '.cu') for o in objs):
        objs = [o for o in objs if not o.endswith('/gpu_absent.o')]
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        text = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in text.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in 'TDBRW':
                defs.setdefault(p[2], o)
            elif len(p) == 2 and p[0] == 'U':
                uses[o].add(p[1])
    graph, why = collections.defaultdict(set), {}
    for o in objs:
        graph[o]
        for s in uses[o]:
            d = defs.get(s)
            if d and d != o:
                graph[o].add(d)
                why.setdefault((o, d), []).append(s)
    return graph, why


def report(title, graph, why):
    cycles = sccs(graph)
    print(f'{title}: {len(graph)} files, {len(cycles)} cycle(s)')
    for comp in cycles:
        print('  cycle:', ' '.join(comp))
        for a in comp:
            for b in sorted(graph[a] & set(comp)):
                print(f'    {a} -> {b}', ' '.join(sorted(why.get((a, b), []))[:6]))
    return len(cycles)


def family(path):
    """An engine object's family (batch, join, ...); a PostgreSQL-layer
    object's role folder (pg/sql, pg/read, ...), or pg for the module files."""
    p = path.split('/')
    if p[1] == 'engine':
        return p[2]
    return 'pg/' + p[2] if len(p) > 3 else 'pg'


def families(graph):
    """The call graph between feature families (folders): reported, not checked."""
    fam = collections.defaultdict(set)
    for a, bs in graph.items():
        for b in bs:
            fa, fb = family(a), family(b)
            if fa != fb:
                fam[fa].add(fb)
    for f in list(fam):
        fam[f]
    return fam


def engine_calls_pg(graph, why):
    """Engine objects that use a symbol of the PostgreSQL layer's."""
    bad = 0
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if a.startswith('src/engine/') and b.startswith('src/pg/'):
                print(f'  engine calls the PostgreSQL layer: {a} -> {b}',
                      ' '.join(sorted(why.get((a, b), []))[:6]))
                bad += 1
    return bad


def main():
    igraph, iwhy = include_graph()
    bad = report('includes', igraph, iwhy)
    strays = facade_strays(igraph)
    print(f'engine headers included by src/pg other than {FACADE}: {strays}')
    bad += strays
    graph, why = call_graph()
    if graph:
        bad += report('calls between objects', graph, why)
        bad += engine_calls_pg(graph, why)
        fam = families(graph)
        print('calls between families (for reading; not an error):')
        for f in sorted(fam):
            print(f'  {f} -> {" ".join(sorted(fam[f]))}')
    else:
        print('calls between objects: no src/engine/*/*.o or src/pg/*.o built, skipped')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
