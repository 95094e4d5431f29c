#!/usr/bin/python3
"""The target graph of Package.swift, as docs/ARCHITECTURE.md "Module map" draws it.

Usage: scripts/module-map.py           print the map's lines
       scripts/module-map.py --check   fail when the map in docs/ARCHITECTURE.md differs from Package.swift

It reads `swift package dump-package`, so the map cannot drift from the targets the compiler enforces.
"""
import json
import subprocess
import sys

# The order the map lists targets in: top to bottom, the executable first.
ORDER = [
    'auth-handler', 'FakeIdP', 'AuthHandlerCore', 'AuthHandlerAccounts', 'AuthHandlerStore', 'AuthHandlerProtocols', 'AuthHandlerHTTP',
    'AuthHandlerCrypto', 'AuthHandlerSystem', 'AuthHandlerClient',
]
DOC = 'docs/ARCHITECTURE.md'
BEGIN, END = '<!-- module-map: begin -->', '<!-- module-map: end -->'


def dependencies():
    package = json.loads(subprocess.run(['swift', 'package', 'dump-package'], check=True, capture_output=True,
                                        text=True).stdout)
    found = {}
    for target in package['targets']:
        names = []
        for dependency in target.get('dependencies', []):
            for kind in ('byName', 'target', 'product'):
                if kind in dependency:
                    names.append(dependency[kind][0])
        found[target['name']] = names
    return found


def lines():
    graph = dependencies()
    missing = [name for name in ORDER if name not in graph]
    if missing:
        sys.exit(f'module-map: Package.swift has no target {", ".join(missing)}; update ORDER in {sys.argv[0]}')
    width = max(len(name) for name in ORDER)
    out = []
    for name in ORDER:
        swift = [d for d in ORDER if d in graph[name]]
        c = sorted(d for d in graph[name] if d not in ORDER)
        out.append(f'{name.ljust(width)}  ──► ' + (', '.join(swift + c) if swift or c else '(nothing: Foundation only)'))
    return ['```'] + out + ['```']


def main():
    expected = lines()
    if sys.argv[1:] != ['--check']:
        print('\n'.join(expected))
        return
    text = open(DOC, encoding='utf-8').read().split('\n')
    try:
        block = text[text.index(BEGIN) + 1:text.index(END)]
    except ValueError:
        sys.exit(f'module-map: {DOC} has no {BEGIN} ... {END} block')
    if block != expected:
        sys.exit(f'module-map: the module map in {DOC} differs from Package.swift; replace it with the output of '
                 f'{sys.argv[0]}:\n' + '\n'.join(expected))
    print('module map matches Package.swift')


main()
