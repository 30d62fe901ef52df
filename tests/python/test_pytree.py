from collections import namedtuple

import pytest

import spire
from spire import tree_flatten, tree_map, tree_unflatten

Point = namedtuple("Point", ["x", "y"])


def test_flatten_unflatten_round_trip():
    tree = {"b": [1, (2, 3)], "a": Point(4, {"z": 5}), "c": None}
    leaves, td = tree_flatten(tree)
    assert leaves == [4, 5, 1, 2, 3]  # dict keys sorted
    assert tree_unflatten(td, leaves) == tree
    assert td.num_leaves == 5


def test_tree_map_and_errors():
    assert tree_map(lambda a, b: a + b, [1, {"k": 2}], [10, {"k": 20}]) == [11, {"k": 22}]
    with pytest.raises(ValueError):
        tree_map(lambda a, b: a, [1], [1, 2])
    _, td = tree_flatten((1, 2))
    with pytest.raises(ValueError):
        tree_unflatten(td, [1])


def test_custom_node():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    spire.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda aux, ch: Pair(*ch))
    leaves, td = tree_flatten({"p": Pair(1, [2, 3])})
    assert leaves == [1, 2, 3]
    back = tree_unflatten(td, [7, 8, 9])
    assert back["p"].a == 7 and back["p"].b == [8, 9]
    g = spire.grad(lambda p: (p.a * p.b).sum())(Pair(spire.tensor([2.0]), spire.tensor([5.0])))
    assert g.a.item() == 5.0 and g.b.item() == 2.0
