"""Dict job configs as TOML text, for the C++ job-file readers (which check every key)."""
from __future__ import annotations

import math
from typing import Any, Mapping


def _key(k: str) -> str:
    """A bare key when TOML allows one, else a quoted one."""
    bare = k and all((c.isascii() and c.isalnum()) or c in "_-" for c in k)
    return k if bare else '"' + k.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value(v: Any, where: str, who: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, where, who) for x in v) + "]"
    if isinstance(v, Mapping):  # an inline table: parameters = { nu = 0.01 }
        return "{ " + ", ".join(f"{_key(k)} = {_value(x, f'{where}.{k}', who)}" for k, x in v.items()) + " }"
    raise TypeError(f"{who}: {where} must be a bool, number, string or list, got {type(v).__name__}")


def to_toml(config: Mapping[str, Any], who: str) -> str:
    """The job-file text of a dict config (top-level values, then one table per section); `who` names
    the caller in errors."""
    top, tables = [], []
    for key, value in config.items():
        if isinstance(value, Mapping):
            lines = [f"[{key}]"]
            for k, v in value.items():
                lines.append(f"{_key(k)} = {_value(v, f'{key}.{k}', who)}")
            tables.append("\n".join(lines))
        else:
            top.append(f"{key} = {_value(value, key, who)}")
    return "\n".join(top) + "\n\n" + "\n\n".join(tables) + "\n"
