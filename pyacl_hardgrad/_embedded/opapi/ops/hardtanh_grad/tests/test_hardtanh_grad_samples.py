"""aclnnHardtanhBackward's sample outputs are CANN's: the values test_aclnn_hardtanh_grad.cpp
prints for its data (gradOutput 0..7, self [1,1,1,2,1,2,3,3], min 1.2, max 2.4), for the
C++ sample, its Python port and the pyACL forms (plain and handing pyACL's handles to a plan)."""
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CANN_VALUES = (0, 0, 0, 3, 0, 5, 0, 0)


@pytest.mark.parametrize("expected", ["test_aclnn_hardtanh_grad.expected", "hardtanh_backward_pyacl.expected",
                                      "hardtanh_backward_mixed_pyacl.expected"])
def test_expected_output_is_canns(expected):
    assert (EXAMPLES / expected).read_text() == "".join(
        "result[%d] is: %f\n" % (i, v) for i, v in enumerate(CANN_VALUES))
    assert (EXAMPLES / expected).read_text().splitlines()[3] == "result[3] is: 3.000000"
