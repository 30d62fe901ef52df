"""Pytrees: nested tuples, lists, dicts and namedtuples with tensors (or anything else) at the leaves.

The functional transforms flatten their arguments and results with these, so a function may take
and return structures of tensors, as in JAX. ``None`` is an empty subtree (it holds no leaves);
dict keys are sorted so that equal dicts flatten alike. Further container types can be registered
with :func:`register_pytree_node`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, List, Tuple

__all__ = [
    "TreeDef",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_structure",
    "tree_map",
    "register_pytree_node",
]

# type -> (flatten: obj -> (children, aux), unflatten: (aux, children) -> obj)
_registry: dict = {}


def register_pytree_node(cls: type, flatten: Callable[[Any], Tuple[Iterable, Any]],
                         unflatten: Callable[[Any, list], Any]) -> None:
    """Makes instances of ``cls`` pytree nodes: ``flatten(obj) -> (children, aux)`` and
    ``unflatten(aux, children) -> obj``."""
    _registry[cls] = (flatten, unflatten)


class TreeDef:
    """The structure of a pytree with its leaves taken out."""

    __slots__ = ("kind", "aux", "children", "num_leaves")

    def __init__(self, kind: str, aux: Any, children: Tuple["TreeDef", ...]):
        self.kind = kind  # "leaf", "none", "tuple", "list", "dict", "namedtuple", "custom"
        self.aux = aux
        self.children = children
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in children)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeDef) and self.kind == other.kind and self.aux == other.aux
                and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, repr(self.aux), self.children))

    def __repr__(self) -> str:
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join(repr(c) for c in self.children)
        if self.kind == "tuple":
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.kind == "list":
            return f"[{inner}]"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.aux, self.children)) + "}"
        name = self.aux[0].__name__ if self.kind in ("namedtuple", "custom") else self.kind
        return f"{name}({inner})"


_LEAF = TreeDef("leaf", None, ())
_NONE = TreeDef("none", None, ())


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _flatten(x: Any, leaves: list, is_leaf) -> TreeDef:
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    if x is None:
        return _NONE
    t = type(x)
    if t in _registry:
        children, aux = _registry[t][0](x)
        return TreeDef("custom", (t, aux), tuple(_flatten(c, leaves, is_leaf) for c in children))
    if _is_namedtuple(x):
        return TreeDef("namedtuple", (t,), tuple(_flatten(c, leaves, is_leaf) for c in x))
    if isinstance(x, tuple):
        return TreeDef("tuple", None, tuple(_flatten(c, leaves, is_leaf) for c in x))
    if isinstance(x, list):
        return TreeDef("list", None, tuple(_flatten(c, leaves, is_leaf) for c in x))
    if isinstance(x, dict):
        keys = sorted(x.keys(), key=lambda k: (type(k).__name__, k))
        return TreeDef("dict", tuple(keys), tuple(_flatten(x[k], leaves, is_leaf) for k in keys))
    leaves.append(x)
    return _LEAF


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> Tuple[List[Any], TreeDef]:
    """Leaves of ``tree`` (depth first, dict keys sorted) and its structure."""
    leaves: list = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def _unflatten(td: TreeDef, it) -> Any:
    if td.kind == "leaf":
        return next(it)
    if td.kind == "none":
        return None
    children = [_unflatten(c, it) for c in td.children]
    if td.kind == "tuple":
        return tuple(children)
    if td.kind == "list":
        return children
    if td.kind == "dict":
        return dict(zip(td.aux, children))
    if td.kind == "namedtuple":
        return td.aux[0](*children)
    cls, aux = td.aux
    return _registry[cls][1](aux, children)


def tree_unflatten(treedef: TreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuilds a pytree of structure ``treedef`` from its leaves."""
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"tree_unflatten: the structure {treedef!r} has {treedef.num_leaves} leaves, "
                         f"got {len(leaves)}")
    return _unflatten(treedef, iter(leaves))


def tree_leaves(tree: Any, is_leaf=None) -> List[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf=None) -> TreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf=None) -> Any:
    """``f`` applied leafwise; ``rest`` are trees of the same structure whose leaves are passed too."""
    leaves, td = tree_flatten(tree, is_leaf)
    others = []
    for r in rest:
        rl, rtd = tree_flatten(r, is_leaf)
        if rtd != td:
            raise ValueError(f"tree_map: structures differ: {td!r} vs {rtd!r}")
        others.append(rl)
    return tree_unflatten(td, [f(*xs) for xs in zip(leaves, *others)])
