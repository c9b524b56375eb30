"""aclnnHardsigmoidBackward's sample outputs are CANN's: the values
test_aclnn_hard_sigmoid_grad.cpp prints for its data, for the C++ sample, its Python port and
its pyACL form."""
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CANN_VALUES = (0, 1 / 6, 2 / 6, 0, 0, 0, 0, 0)


@pytest.mark.parametrize("expected", ["test_aclnn_hard_sigmoid_grad.expected", "hardsigmoid_backward_pyacl.expected"])
def test_expected_output_is_canns(expected):
    assert (EXAMPLES / expected).read_text() == "".join(
        "result[%d] is: %f\n" % (i, v) for i, v in enumerate(CANN_VALUES))
    assert (EXAMPLES / expected).read_text().splitlines()[1] == "result[1] is: 0.166667"
