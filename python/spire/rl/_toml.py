"""Dict job configs as TOML text, for the C++ job-file readers (which check every key)."""
from __future__ import annotations

import math
from typing import Any, Mapping


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
    raise TypeError(f"{who}: {where} must be a bool, number, string or list, got {type(v).__name__}")


def to_toml(config: Mapping[str, Any], who: str) -> str:
    """The job-file text of a dict config (top-level values, then one table per section); `who` names
    the caller in errors."""
    top, tables = [], []
    for key, value in config.items():
        if isinstance(value, Mapping):
            lines = [f"[{key}]"]
            for k, v in value.items():
                if isinstance(v, Mapping):
                    raise TypeError(f"{who}: {key}.{k} is nested too deeply (sections hold values)")
                lines.append(f"{k} = {_value(v, f'{key}.{k}', who)}")
            tables.append("\n".join(lines))
        else:
            top.append(f"{key} = {_value(value, key, who)}")
    return "\n".join(top) + "\n\n" + "\n\n".join(tables) + "\n"
