"""aclnnHardshrinkBackward the Pythonic way: numpy in, numpy out, through the generic operator call.

Same data and printed lines as test_aclnn_hardshrink_backward.py (the line-by-line port).
"""
import numpy as np

import pyacl_hardgrad as hg


def main():
    grad_output = np.array([0, 0, 1, 1], dtype=np.float32).reshape(2, 2)
    self = np.array([1, 2, 3, 4], dtype=np.float32).reshape(2, 2)
    result = hg.hardshrink_backward(grad_output, self, 2.0)
    for i, v in enumerate(np.asarray(result).ravel()):
        print("result[%d] is: %f" % (i, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
