#!/usr/bin/env python3
"""Lists Swift functions and initialisers longer than a limit (default 60 lines).

Usage: scripts/long-functions.py [LIMIT] [DIR...]   (default: 60 Sources)
A function's length runs from its `func`/`init`/`deinit` line to its closing brace, signature included.
Exits 1 when any function is over the limit, so `make lint` fails on one (it runs this with LONG_FUNCTION_LIMIT).
Braces inside string literals and comments are skipped; the count is approximate for exotic syntax.
"""
import os
import re
import sys

DECL = re.compile(r'^\s*(?:@[\w()", ]+\s+)*(?:(?:public|private|fileprivate|internal|static|class|final|override|'
                  r'mutating|nonisolated|convenience|required|@\w+)\s+)*'
                  r'(func\s+([^\s(<]+)|init[?!]?|deinit)\b')

TERMINATORS = {'block': '*/', 'multiline': '"""'}


def strip(line, state):
    """The line's code with string literals and comments removed; state tracks multi-line strings/comments."""
    out = []
    i = 0
    while i < len(line):
        open_kind = next((kind for kind in ('block', 'multiline') if state[kind]), None)
        if open_kind:
            end = line.find(TERMINATORS[open_kind], i)
            if end < 0:
                return ''.join(out)
            state[open_kind] = False
            i = end + len(TERMINATORS[open_kind])
            continue
        if line.startswith('//', i):
            break
        if line.startswith('/*', i):
            state['block'] = True
            i += 2
            continue
        if line.startswith('"""', i):
            state['multiline'] = True
            i += 3
            continue
        if line[i] == '"':
            i += 1
            depth = 0
            while i < len(line):
                if line[i] == '\\' and i + 1 < len(line) and line[i + 1] == '(':
                    depth += 1
                    i += 2
                    continue
                if depth and line[i] == ')':
                    depth -= 1
                elif not depth and line[i] == '\\':
                    i += 1
                elif not depth and line[i] == '"':
                    break
                i += 1
            i += 1
            continue
        out.append(line[i])
        i += 1
    return ''.join(out)


def functions(path):
    with open(path, encoding='utf-8') as file:
        lines = file.read().split('\n')
    state = {'block': False, 'multiline': False}
    code = [strip(line, state) for line in lines]
    types = []  # (name, depth at which its body opened)
    depth = 0
    open_functions = []  # (name, start line, depth before its body)
    pending = None
    results = []
    for number, text in enumerate(code, 1):
        match = DECL.match(text)
        if match and pending is None:
            name = match.group(2) or match.group(1).split()[0]
            owner = types[-1][0] if types else ''
            pending = (f'{owner}.{name}' if owner else name, number, depth)
        type_match = re.match(r'^\s*(?:[\w@]+\s+)*(?:struct|class|enum|actor|extension|protocol)\s+([\w.]+)', text)
        for char in text:
            if char == '{':
                if pending is not None and depth == pending[2]:
                    open_functions.append(pending)
                    pending = None
                elif type_match and not open_functions:
                    types.append((type_match.group(1), depth))
                    type_match = None
                depth += 1
            elif char == '}':
                depth -= 1
                if open_functions and depth == open_functions[-1][2]:
                    name, start, _ = open_functions.pop()
                    results.append((number - start + 1, name, start))
                elif types and depth == types[-1][1]:
                    types.pop()
    return results


def main():
    args = sys.argv[1:]
    limit = int(args.pop(0)) if args and args[0].isdigit() else 60
    roots = args or ['Sources']
    found = []
    for root in roots:
        for directory, _, names in os.walk(root):
            for name in names:
                if name.endswith('.swift'):
                    path = os.path.join(directory, name)
                    found += [(length, fn, path, start) for length, fn, start in functions(path)]
    long = sorted((entry for entry in found if entry[0] > limit), reverse=True)
    for length, name, path, start in long:
        print(f'{length:4d}  {name}  {path}:{start}')
    print(f'{len(long)} functions over {limit} lines')
    return 1 if long else 0


if __name__ == '__main__':
    sys.exit(main())
