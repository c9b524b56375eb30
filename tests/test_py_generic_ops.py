"""The generic operator path: prototypes read from headers become functions and plans with the
naming rule, parameter kinds, output classification, op.json entries and defaults.  Headers of
operators the package does not carry are written here (invented names, with the shapes CANN's
activation operators use: inputs and an output, in-place, a const out, scalars)."""
import json

import numpy as np
import pytest

FAMILY_HEADER = """
/* prototypes as CANN's ops-nn headers declare them */
#include "aclnn/aclnn_base.h"
aclnnStatus aclnnStepBackwardV2GetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                     aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);
aclnnStatus aclnnStepBackwardV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);
ACLNN_API aclnnStatus aclnnInplaceRampGetWorkspaceSize(const aclTensor *self, uint64_t *workspaceSize,
                                                              aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceRamp(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream);
// out is const in CANN's header: op.json lists it as the output
aclnnStatus aclnnStepGetWorkspaceSize(const aclTensor *self, const aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor);
aclnnStatus aclnnStep(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
aclnnStatus aclnnShrinkGetWorkspaceSize(const aclTensor *self, const aclScalar *lambd, aclTensor *out,
                                            uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnShrink(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
aclnnStatus aclnnInplaceClipGetWorkspaceSize(aclTensor *selfRef, const aclScalar *clipValueMin,
                                                 const aclScalar *clipValueMax, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);
aclnnStatus aclnnInplaceClip(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);
aclnnStatus aclnnWithListGetWorkspaceSize(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                                          aclOpExecutor **executor);
aclnnStatus aclnnWithList(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
aclnnStatus aclnnNoPhaseTwoGetWorkspaceSize(const aclTensor *self, uint64_t *workspaceSize, aclOpExecutor **executor);
"""


@pytest.fixture(scope="module")
def family(hg):
    from pyacl_hardgrad._build import signatures
    return signatures.operators(FAMILY_HEADER, "aclnn_family.h")


def _spec(hg, family, name, entry=None):
    from pyacl_hardgrad import ops
    desc = next(d for d in family[0] if d["name"] == name)
    return ops.OpSpec(desc, entry or {}, None, None, "test")


def test_prototypes_become_parameter_kinds_and_unsupported_ones_say_why(hg, family):
    found, skipped = family
    assert [d["name"] for d in found] == ["aclnnStepBackwardV2", "aclnnInplaceRamp", "aclnnStep",
                                          "aclnnShrink", "aclnnInplaceClip"]
    kinds = {d["name"]: [(p["name"], p["kind"]) for p in d["params"]] for d in found}
    assert kinds["aclnnShrink"] == [("self", "tensor"), ("lambd", "scalar"), ("out", "out")]
    assert kinds["aclnnInplaceClip"] == [("selfRef", "out"), ("clipValueMin", "scalar"),
                                             ("clipValueMax", "scalar")]
    assert "aclTensorList" in skipped["aclnnWithList"] and "tensors" in skipped["aclnnWithList"]
    assert "no phase 2" in skipped["aclnnNoPhaseTwo"]


@pytest.mark.parametrize("name, function, plan", [
    ("aclnnStepBackwardV2", "step_backward_v2", "StepBackwardV2Plan"),
    ("aclnnInplaceRamp", "inplace_ramp", "InplaceRampPlan"),
    ("aclnnShrink", "shrink", "ShrinkPlan"),
    ("aclnnInplaceClip", "inplace_clip", "InplaceClipPlan"),
])
def test_the_naming_rule(hg, family, name, function, plan):
    spec = _spec(hg, family, name)
    assert (spec.function_name, spec.plan_name) == (function, plan)


def test_outputs_are_non_const_tensors_unless_op_json_says_otherwise(hg, family):
    roles = lambda s: [(p.name, p.role) for p in s.params]  # noqa: E731
    assert roles(_spec(hg, family, "aclnnStepBackwardV2")) == [("grad_output", "in"), ("self", "in"),
                                                                    ("out", "out")]
    assert roles(_spec(hg, family, "aclnnStep")) == [("self", "in"), ("out", "in")]
    assert roles(_spec(hg, family, "aclnnStep", {"outputs": ["out"]})) == [("self", "in"), ("out", "out")]
    # in-place: the first tensor of aclnnInplaceXxx (const in CANN's header) or a ...Ref parameter
    assert roles(_spec(hg, family, "aclnnInplaceRamp")) == [("self", "inout")]
    assert roles(_spec(hg, family, "aclnnInplaceClip"))[0] == ("self_ref", "inout")


def test_generated_signatures_take_defaults_and_keep_outputs_optional(hg, family):
    import inspect
    from pyacl_hardgrad import ops
    spec = _spec(hg, family, "aclnnShrink", {"defaults": {"lambd": 0.5}, "doc": "Shrink."})
    spec.fused = spec.planner = None
    fn = ops._make_function(spec)
    plan = ops._make_plan_class(spec)
    assert str(inspect.signature(fn)) == "(self, lambd=0.5, *, out=None, stream=None, sync=False)"
    assert str(inspect.signature(plan.__init__)) == "(_plan, self, lambd=0.5, out=None, repeatable=False)"
    assert fn.__doc__.startswith("Shrink.") and fn.__name__ == "shrink"
    inplace = ops._make_function(_spec(hg, family, "aclnnInplaceClip"))
    assert str(inspect.signature(inplace)) == \
        "(self_ref, clip_value_min, clip_value_max, *, stream=None, sync=False)"


def test_op_json_entries_are_read_and_merged(hg, tmp_path):
    from pyacl_hardgrad._build import signatures
    a, b, c = tmp_path / "shrink", tmp_path / "step", tmp_path / "no_entry"
    for d in (a, b, c):
        d.mkdir()
    (a / "op.json").write_text(json.dumps({"functions": {"aclnnShrink": {"defaults": {"lambd": 0.5},
                                                                            "doc": "one line"}}}))
    (b / "op.json").write_text(json.dumps({"functions": {"aclnnStep": {"outputs": ["out"]},
                                                         "aclnnInplaceStep": {}}}))
    entries = signatures.read_entries([a, b, c])
    assert entries == {"aclnnShrink": {"defaults": {"lambd": 0.5}, "doc": "one line"},
                       "aclnnStep": {"outputs": ["out"]}, "aclnnInplaceStep": {}}
    (c / "op.json").write_text(json.dumps({"functions": {"aclnnX": 3}}))
    with pytest.raises(ValueError, match="aclnnX"):
        signatures.read_entries([c])


def test_the_binding_was_built_from_every_header_of_include(hg):
    """Each operator of the installed include/aclnnop is offered, through the generated calls."""
    from pathlib import Path
    from pyacl_hardgrad import lib, ops
    from pyacl_hardgrad._build import signatures
    found, skipped = signatures.read_headers(sorted((Path(hg.get_include()) / "aclnnop").glob("*.h")))
    assert {d["name"] for d in found} <= set(ops.operators())
    for d in found:
        spec = ops.operators()[d["name"]]
        assert spec.fused is getattr(lib, "hgb_call_" + d["name"]) and spec.source == "binding"


def test_value_parameters_are_checked_by_name(hg, family):
    from pyacl_hardgrad import ops
    p = ops.Param("times", "times", "int", "in", "int64_t")
    assert ops._as_value(p, np.int64(3)) == 3
    with pytest.raises(TypeError, match=r"times must be an integer \(int64_t\), not float 1.5"):
        ops._as_value(p, 1.5)
    q = ops.Param("alpha", "alpha", "float", "in", "double")
    assert ops._as_value(q, 2) == 2.0
    with pytest.raises(TypeError, match="alpha must be a real number"):
        ops._as_value(q, "x")
