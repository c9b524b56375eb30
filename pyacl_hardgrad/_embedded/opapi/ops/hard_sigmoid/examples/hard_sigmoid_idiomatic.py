"""aclnnHardsigmoid and aclnnInplaceHardsigmoid the Pythonic way, through the generic operator call.

Same data and printed lines as test_aclnn_hard_sigmoid.py (the line-by-line port).
"""
import numpy as np

import pyacl_hardgrad as hg


def main():
    self = np.array([-4, -3, -2, 0, 1, 2, 4, 5], dtype=np.float32).reshape(4, 2)
    result = hg.hardsigmoid(self)
    for i, v in enumerate(np.asarray(result).ravel()):
        print("result[%d] is: %f" % (i, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
