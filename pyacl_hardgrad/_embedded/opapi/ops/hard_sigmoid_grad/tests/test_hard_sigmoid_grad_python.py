"""The Python names aclnnHardsigmoidBackward's op.json keeps: ``hardsigmoid_result_dtype``, the
older name of ``result_dtype`` (the promoted out dtype of the two inputs)."""
import numpy as np

import hard_sigmoid_grad_model as model


def test_result_dtype_alias_is_result_dtype(hg):
    assert "hardsigmoid_result_dtype" in hg.ops.__all__ and "hardsigmoid_result_dtype" in dir(hg)
    names = ("float32", "float16", "bfloat16")
    for a in names:
        for b in names:
            da, db = hg.dtypes.to_numpy_dtype(a), hg.dtypes.to_numpy_dtype(b)
            got = hg.hardsigmoid_result_dtype(da, db)
            assert got == hg.result_dtype(da, db) == model.promote(da, db), (a, b)
    assert hg.hardsigmoid_result_dtype(np.float16, np.float32) == np.float32
