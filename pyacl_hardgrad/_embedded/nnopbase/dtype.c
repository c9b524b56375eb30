/* Element sizes and CANN's dtype names. */
#include "hg_internal.h"

size_t hg_dtype_size(aclDataType dtype)
{
    switch (dtype) {
    case ACL_FLOAT: return 4;
    case ACL_FLOAT16: return 2;
    case ACL_BF16: return 2;
    case ACL_DOUBLE: return 8;
    case ACL_INT8: return 1;
    case ACL_UINT8: return 1;
    case ACL_INT16: return 2;
    case ACL_UINT16: return 2;
    case ACL_INT32: return 4;
    case ACL_UINT32: return 4;
    case ACL_INT64: return 8;
    case ACL_UINT64: return 8;
    case ACL_BOOL: return 1;
    case ACL_COMPLEX32: return 4;
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    case ACL_FLOAT8_E5M2: return 1;
    case ACL_FLOAT8_E4M3FN: return 1;
    case ACL_FLOAT8_E8M0: return 1;
    /* No whole-byte element: ACL_DT_UNDEFINED, ACL_STRING, ACL_INT4, ACL_UINT1. */
    default: return 0;
    }
}

const char *hg_dtype_name(aclDataType dtype)
{
    switch (dtype) {
    case ACL_DT_UNDEFINED: return "DT_UNDEFINED";
    case ACL_FLOAT: return "DT_FLOAT";
    case ACL_FLOAT16: return "DT_FLOAT16";
    case ACL_INT8: return "DT_INT8";
    case ACL_INT32: return "DT_INT32";
    case ACL_UINT8: return "DT_UINT8";
    case ACL_INT16: return "DT_INT16";
    case ACL_UINT16: return "DT_UINT16";
    case ACL_UINT32: return "DT_UINT32";
    case ACL_INT64: return "DT_INT64";
    case ACL_UINT64: return "DT_UINT64";
    case ACL_DOUBLE: return "DT_DOUBLE";
    case ACL_BOOL: return "DT_BOOL";
    case ACL_STRING: return "DT_STRING";
    case ACL_COMPLEX64: return "DT_COMPLEX64";
    case ACL_COMPLEX128: return "DT_COMPLEX128";
    case ACL_BF16: return "DT_BF16";
    case ACL_INT4: return "DT_INT4";
    case ACL_UINT1: return "DT_UINT1";
    case ACL_COMPLEX32: return "DT_COMPLEX32";
    case ACL_FLOAT8_E5M2: return "DT_FLOAT8_E5M2";
    case ACL_FLOAT8_E4M3FN: return "DT_FLOAT8_E4M3FN";
    case ACL_FLOAT8_E8M0: return "DT_FLOAT8_E8M0";
    default: return "UNKNOWN";
    }
}
