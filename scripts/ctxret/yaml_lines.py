"""Where a key is written in the YAML files a configuration was read from (`file:line`), for
error lines that name the place to fix."""
from __future__ import annotations

from pathlib import Path

import yaml


def key_line(source: str, path) -> int | None:
    """The line of `source` (a YAML file) where the key at `path` is written, if it is."""
    try:
        node = yaml.compose(Path(source).read_text(encoding="utf-8-sig"))
    except (OSError, yaml.YAMLError):
        return None
    line = None
    for key in path:
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if k.value == str(key)), None)
            if found is None:
                return line
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def repeated_key(source: str) -> str | None:
    """`file:line: key: ...` for the first key that a mapping of `source` writes twice (YAML
    would keep the later in silence), if one does."""
    try:
        root = yaml.compose(Path(source).read_text(encoding="utf-8-sig"))
    except (OSError, yaml.YAMLError):
        return None
    todo = [(root, [])]
    while todo:
        node, path = todo.pop(0)
        if isinstance(node, yaml.MappingNode):
            first = {}
            for key, value in node.value:
                line = key.start_mark.line + 1
                if isinstance(key, yaml.ScalarNode) and key.value in first:
                    dotted = ".".join(map(str, [*path, key.value]))
                    return (f"{source}:{line}: {dotted}: written twice (lines {first[key.value]} and {line}); "
                            f"YAML would keep only the later: keep one")
                first.setdefault(getattr(key, "value", None), line)
                todo.append((value, [*path, key.value]))
        elif isinstance(node, yaml.SequenceNode):
            todo += [(item, [*path, i]) for i, item in enumerate(node.value)]
    return None


def where(sources: tuple[str, ...], path) -> str:
    """`file:line` of the last source that writes the key at `path` (later files win), or the files."""
    for source in reversed(sources):
        line = key_line(source, path)
        if line is not None:
            return f"{source}:{line}"
    return ", ".join(sources)
