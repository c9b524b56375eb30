"""aclnnHardshrink the Pythonic way: numpy in, numpy out, through the generic operator call.

Same data and printed lines as test_aclnn_hardshrink.py (the line-by-line port).
"""
import numpy as np

import pyacl_hardgrad as hg


def main():
    self = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], dtype=np.float32).reshape(4, 2)
    result = hg.hardshrink(self, 0.5)
    for i, v in enumerate(np.asarray(result).ravel()):
        print("result[%d] is: %f" % (i, v))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
