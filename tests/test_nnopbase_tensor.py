"""aclCreateTensor and friends (libnnopbase), through C programs linked like CANN's samples."""
from __future__ import annotations

import pytest

SRC = "nnopbase_tensor.c"


def _run(cprog, *args, valgrind=False):
    exe = cprog.build(SRC)
    return cprog.run(exe, *args, valgrind=valgrind)


@pytest.mark.parametrize("ndim", list(range(0, 21)))
def test_tensor_of_any_rank_up_to_20_is_created(cprog, ndim):
    # Operators reject > 8 dims themselves; the descriptor must exist for them to do so.
    proc = _run(cprog, "rank", str(ndim))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"


# case -> text the message must contain after "aclCreateTensor: "
BAD = {
    "null_viewdims": "viewDims is NULL while viewDimsNum is 2",
    "null_stride_past_storage": "view does not fit in storage: offset + sum((viewDims[i]-1)*stride[i]) = 7 "
                                "must be less than the storage element count 7",
    "null_stride_overflow": "stride is NULL and the contiguous strides of viewDims overflow int64",
    "null_storage": "storageDims is NULL while storageDimsNum is 2",
    "neg_view": "viewDims[1] = -2 must not be negative",
    "neg_storage": "storageDims[0] = -4 must not be negative",
    "neg_stride": "stride[0] = -2 must not be negative",
    "neg_offset": "offset -1 must not be negative",
    "dtype_undefined": "dataType -1 (DT_UNDEFINED) is not supported",
    "dtype_string": "dataType 13 (DT_STRING) is not supported",
    "dtype_int4": "dataType 29 (DT_INT4) is not supported",
    "dtype_uint1": "dataType 30 (DT_UINT1) is not supported",
    "dtype_unknown": "dataType 999 (UNKNOWN) is not supported",
    "dtype_gap": "dataType 5 (UNKNOWN) is not supported",
    "format_unknown": "format 999 is not a value of aclFormat",
    "format_gap": "format 5 is not a value of aclFormat",
    "format_negative": "format -2 is not a value of aclFormat",
    "too_many_view_dims": "viewDimsNum 65 exceeds the maximum of 64 dimensions",
    "too_many_storage_dims": "storageDimsNum 65 exceeds the maximum of 64 dimensions",
    "huge_view_dims_num": "viewDimsNum 18446744073709551615 exceeds the maximum",
    "numel_overflow": "viewDims describe too many elements",
    "bytes_overflow": "viewDims describe too many elements",
    "storage_overflow": "storageDims describe too many elements",
    "view_past_storage": "view does not fit in storage: offset + sum((viewDims[i]-1)*stride[i]) = 7 "
                         "must be less than the storage element count 7",
    "offset_past_storage": "= 8 must be less than the storage element count 8",
    "stride_past_storage": "= 8 must be less than the storage element count 8",
    "empty_storage": "= 7 must be less than the storage element count 0",
    "extent_overflow": "view does not fit in storage: offset + sum((viewDims[i]-1)*stride[i]) overflows int64",
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_malformed_descriptor_returns_null_with_message(cprog, case):
    proc = _run(cprog, "bad", case)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = proc.stdout.strip().splitlines()[-1]
    assert line.startswith("MSG:aclCreateTensor: "), line
    assert BAD[case] in line, line


@pytest.mark.parametrize("check", ["views", "formats", "dtypes", "getters", "destroy"])
def test_tensor_descriptor_rules(cprog, valgrind_available, check):
    # Valgrind also proves that destroyed handles are recognised without being read.
    proc = _run(cprog, check, valgrind=valgrind_available)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"


def test_null_stride_means_contiguous_strides(cprog, valgrind_available):
    """stride = NULL gives the contiguous strides of viewDims (a zero dim included), the other
    descriptor rules still apply, and an operator runs on such tensors; valgrind also checks the
    getters' arrays.  CANN: opbase src/nnopbase/common/utils/common_types.cpp, aclTensor::aclTensor
    (NULL stride -> op::ToContiguousStrides); src/nnopbase/common/utils/shape_utils.cpp,
    ToContiguousStrides; src/nnopbase/common/api/acl_op_api.cpp, aclCreateTensor."""
    exe = cprog.build("nnopbase_null_strides.cpp")
    proc = cprog.run(exe, valgrind=valgrind_available, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "OK"
