"""Operators of the generic call path, picked from what the package discovered (never by name).

``cases()`` gives one Case per operator whose parameters are tensor inputs, scalars and one
output (what most aclnn operators look like); the tests parametrize over them, or over a subset
picked by signature shape (``with_scalars``).  A case calls its operator in every form the
package offers with the same inputs and scalar values, and knows the expected result as the
host-array (numpy in, numpy out) call of the same function computes it.
"""
from __future__ import annotations

import numpy as np

G = np.arange(8, dtype=np.float32) - 2.0
X = np.array([-3.5, -1, -0.25, 0.5, 1, 2, 3, 3.5], np.float32)
HOST = (G, X, X[::-1].copy(), G[::-1].copy())    # the host data of the tensor inputs, in order
# Scalar values for operators without defaults: inside the range of the inputs, so a branch
# on them takes both sides.
SCALARS = (-0.75, 1.5, 0.5, 2.0)


def _installed():
    from conftest import _import_installed
    return _import_installed()


class Case:
    def __init__(self, spec):
        self.spec = spec
        self.name = spec.function_name
        self.fn = spec.function
        self.plan_cls = spec.plan
        self.tensor_params = [p for p in spec.params if p.kind in ("tensor", "out") and p.role != "out"]
        self.scalar_params = [p for p in spec.params if p.kind == "scalar"]
        self.out_param = next(p for p in spec.params if p.role == "out")
        self.scalar_values = [p.default if p.has_default else SCALARS[i] for i, p in enumerate(self.scalar_params)]
        self.n_handles = len(spec.handles)

    def __repr__(self):
        return self.name

    @property
    def host(self):
        return HOST[:len(self.tensor_params)]

    def tensors(self, hg, dev, host=None, dtype=None):
        return [hg.Tensor(a, dev, dtype) for a in (host or self.host)]

    def _args(self, tensors, scalars):
        scalars = self.scalar_values if scalars is None else list(scalars)
        args, ti, si = {}, iter(tensors), iter(scalars)
        for p in self.spec.params:
            if p.role == "out":
                continue
            args[p.name] = next(ti) if p.kind in ("tensor", "out") else next(si)
        return args

    def call(self, tensors, out=None, stream=None, sync=False, scalars=None):
        kw = self._args(tensors, scalars)
        kw[self.out_param.name] = out
        return self.fn(**kw, stream=stream, sync=sync)

    def plan(self, tensors, out=None, repeatable=False, scalars=None):
        kw = self._args(tensors, scalars)
        kw[self.out_param.name] = out
        return self.plan_cls(**kw, repeatable=repeatable)

    def expected(self, host=None, scalars=None):
        """The result of the host-array call (a different path through the same operator)."""
        kw = self._args(list(host or self.host), scalars)
        return np.asarray(self.fn(**kw))


def cases() -> list[Case]:
    hg = _installed()
    out = []
    for spec in hg.ops.operators().values():
        kinds = [p.kind for p in spec.params]
        roles = [p.role for p in spec.params]
        if roles.count("out") == 1 and "inout" not in roles and set(kinds) <= {"tensor", "scalar", "out"} \
                and any(p.kind == "tensor" for p in spec.params):
            out.append(Case(spec))
    return out


def with_scalars() -> list[Case]:
    return [c for c in cases() if c.scalar_params]


def refs(*objs) -> list[int]:
    return [o._refs for o in objs]
