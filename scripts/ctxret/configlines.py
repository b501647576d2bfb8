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


def where(sources: tuple[str, ...], path) -> str:
    """`file:line` of the last source that writes the key at `path` (later files win), or the files."""
    for source in reversed(sources):
        line = key_line(source, path)
        if line is not None:
            return f"{source}:{line}"
    return ", ".join(sources)
