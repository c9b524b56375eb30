/* The runtime base calls: fp16 conversions, data buffers, element sizes, the application
 * log, CANN package and attribute queries, and the SoC name (which answers before
 * aclInit, as tools call it that way). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

/* ------------------------------------------------------------------ fp16 */

ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value)
{
    uint32_t x;
    memcpy(&x, &value, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    /* NaN, infinities and magnitudes of 65536 and more saturate to the largest finite value */
    if (abs >= 0x47800000u)
        return (aclFloat16)(sign | 0x7bffu);
    if (abs < 0x33000000u) /* below half the smallest subnormal: zero */
        return (aclFloat16)sign;
    int exp = (int)(abs >> 23) - 127;
    uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    uint32_t h;
    if (exp < -14) {
        /* subnormal: keep 24 - (-14 - exp) - 13 bits, round to nearest even */
        int shift = 13 + (-14 - exp);
        uint32_t q = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u)))
            ++q;
        h = q; /* may carry into the smallest normal, which is the right encoding */
    } else {
        uint32_t q = mant >> 13;
        uint32_t rem = mant & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
            ++q;
        h = ((uint32_t)(exp + 15) << 10) + (q - 0x400u);
        if (h >= 0x7c00u) /* rounded past the largest finite value */
            h = 0x7bffu;
    }
    return (aclFloat16)(sign | h);
}

ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value)
{
    uint32_t sign = ((uint32_t)value & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)value >> 10) & 0x1fu;
    uint32_t mant = (uint32_t)value & 0x3ffu;
    float f;
    if (exp == 0) {
        f = ldexpf((float)mant, -24); /* zero and subnormals */
    } else {
        /* exponent 31 is read like any other: 0x7c00 is 65536, not infinity */
        f = ldexpf((float)(mant | 0x400u), (int)exp - 25);
    }
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits |= sign;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ------------------------------------------------------------------ element sizes */

ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType)
{
    switch (dataType) {
    case ACL_STRING:
    case ACL_DT_UNDEFINED:
        return 0;
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
        return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
        return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
        return 4;
    case ACL_COMPLEX128:
        return 16;
    default:
        return 8; /* INT64, UINT64, DOUBLE, COMPLEX64 and values CANN does not name */
    }
}

/* ------------------------------------------------------------------ data buffers */

struct aclDataBuffer {
    uint32_t magic;
    void *data;
    size_t size;
};

#define HG_DATA_BUFFER_MAGIC 0x42474841u

ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
    aclDataBuffer *b = malloc(sizeof *b);
    if (!b) {
        hg_set_error("aclCreateDataBuffer", "out of host memory");
        return NULL;
    }
    b->magic = HG_DATA_BUFFER_MAGIC;
    b->data = data;
    b->size = size;
    return b;
}

static bool buffer_ok(const char *func, const aclDataBuffer *b)
{
    if (!b) {
        hg_set_error(func, "dataBuffer is NULL");
        return false;
    }
    if (b->magic != HG_DATA_BUFFER_MAGIC) {
        hg_set_error(func, "dataBuffer is not a live aclDataBuffer");
        return false;
    }
    return true;
}

ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
    if (!buffer_ok("aclDestroyDataBuffer", dataBuffer))
        return ACL_ERROR_INVALID_PARAM;
    aclDataBuffer *b = (aclDataBuffer *)dataBuffer;
    b->magic = 0;
    free(b);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
    if (!buffer_ok("aclUpdateDataBuffer", dataBuffer))
        return ACL_ERROR_INVALID_PARAM;
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
    return buffer_ok("aclGetDataBufferAddr", dataBuffer) ? dataBuffer->data : NULL;
}

ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
    return buffer_ok("aclGetDataBufferSize", dataBuffer) ? (uint32_t)dataBuffer->size : 0u;
}

ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
    return buffer_ok("aclGetDataBufferSizeV2", dataBuffer) ? dataBuffer->size : 0u;
}

/* ------------------------------------------------------------------ application log */

/* The application's own lines, module APP, in the log's layout and places (runtime/log.c):
 * [file:line] and the function are the caller's. */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
                                   const char *fmt, ...)
{
    if ((int)logLevel < HG_LOG_DEBUG || (int)logLevel > HG_LOG_ERROR || !fmt)
        return;
    if (!HG_LOG_ENABLED(HG_LOG_APP, (int)logLevel))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hg_log_write(HG_LOG_APP, (int)logLevel, file ? file : "?", (int)line, func && *func ? func : NULL, "%s", msg);
}

/* ------------------------------------------------------------------ SoC name */

static pthread_once_t g_soc_once = PTHREAD_ONCE_INIT;
static char g_soc_name[HG_SOC_NAME_CAP];

static void read_soc(void)
{
    const char *s = getenv("PYACL_HARDGRAD_SOC");
    if (!s || !*s)
        s = "Ascend910B";
    snprintf(g_soc_name, sizeof g_soc_name, "%s", s);
}

const char *hg_soc_name(void)
{
    pthread_once(&g_soc_once, read_soc);
    return g_soc_name;
}

ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void)
{
    return hg_soc_name();
}

/* ------------------------------------------------------------------ CANN attributes */

static const aclCannAttr g_cann_attrs[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16};

static bool soc_has_bf16(void)
{
    const char *soc = hg_soc_name();
    return strncmp(soc, "Ascend910B", 10) == 0 || strncmp(soc, "Ascend910_93", 12) == 0 ||
           strncmp(soc, "Ascend950", 9) == 0;
}

ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    if (!cannAttrList || !num) {
        hg_set_error("aclGetCannAttributeList", "%s is NULL", !cannAttrList ? "cannAttrList" : "num");
        return ACL_ERROR_INVALID_PARAM;
    }
    /* INF_NAN always; BF16 where the SoC has it; no JIT compilation */
    *cannAttrList = g_cann_attrs;
    *num = soc_has_bf16() ? 2u : 1u;
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    if (!value) {
        hg_set_error("aclGetCannAttribute", "value is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    switch (cannAttr) {
    case ACL_CANN_ATTR_INF_NAN:
        *value = 1;
        return ACL_SUCCESS;
    case ACL_CANN_ATTR_BF16:
        *value = soc_has_bf16() ? 1 : 0;
        return ACL_SUCCESS;
    case ACL_CANN_ATTR_JIT_COMPILE:
        *value = 0;
        return ACL_SUCCESS;
    default:
        hg_set_error("aclGetCannAttribute", "cannAttr (%d) is not an aclCannAttr value", (int)cannAttr);
        return ACL_ERROR_INVALID_PARAM;
    }
}

/* ------------------------------------------------------------------ package versions */

/* Version= line of $ASCEND_HOME_PATH/share/info/<pkg>/version.info into out (cap bytes). */
static aclError read_version(const char *func, const char *pkg, char *out, size_t cap)
{
    const char *home = getenv("ASCEND_HOME_PATH");
    if (!home || !*home) {
        hg_set_error(func, "ASCEND_HOME_PATH is not set (source the toolkit's set_env.sh)");
        return ACL_ERROR_INVALID_FILE;
    }
    if (strchr(pkg, '/') || strstr(pkg, "..")) {
        hg_set_error(func, "pkgName (%s) is not a package name", pkg);
        return ACL_ERROR_INVALID_PARAM;
    }
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/share/info/%s/version.info", home, pkg);
    if (n < 0 || (size_t)n >= sizeof path) {
        hg_set_error(func, "ASCEND_HOME_PATH is too long");
        return ACL_ERROR_INVALID_FILE;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        hg_set_error(func, "%s cannot be opened: %s", path, strerror(errno));
        return ACL_ERROR_INVALID_FILE;
    }
    char line[512];
    aclError rc = ACL_ERROR_INVALID_FILE;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Version=", 8) != 0)
            continue;
        char *v = line + 8;
        v[strcspn(v, "\r\n")] = '\0';
        if (strlen(v) + 1 > cap || !*v)
            break;
        memcpy(out, v, strlen(v) + 1);
        rc = ACL_SUCCESS;
        break;
    }
    fclose(f);
    if (rc)
        hg_set_error(func, "%s has no usable Version= line", path);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    if (!pkgName || !versionStr) {
        hg_set_error("aclsysGetVersionStr", "%s is NULL", !pkgName ? "pkgName" : "versionStr");
        return ACL_ERROR_INVALID_PARAM;
    }
    return read_version("aclsysGetVersionStr", pkgName, versionStr, ACL_PKG_VERSION_MAX_SIZE);
}

/* "9.1.0", "8.5.RC1", "8.5.0.alpha002", "8.5.0-beta.1": major*10^7 + minor*10^5 +
 * patch*10^3, minus 300 / 200 / 100 for alpha / beta / rc plus the pre-release number. */
static bool version_number(const char *v, int32_t *num)
{
    long part[3] = {0, 0, 0};
    const char *p = v;
    int i = 0;
    for (; i < 3; ++i) {
        if (*p < '0' || *p > '9')
            break;
        char *end;
        part[i] = strtol(p, &end, 10);
        p = end;
        if (*p != '.')
            break;
        ++p;
    }
    if (i < 1)
        return false;
    long pre = 0;
    const char *tags[] = {"alpha", "beta", "rc", "RC"};
    const long base[] = {300, 200, 100, 100};
    for (int t = 0; t < 4; ++t) {
        const char *at = strstr(v, tags[t]);
        if (at) {
            at += strlen(tags[t]);
            while (*at && (*at < '0' || *at > '9'))
                ++at;
            pre = -base[t] + strtol(at, NULL, 10);
            break;
        }
    }
    if (part[0] > 200 || part[1] > 99 || part[2] > 99)
        return false;
    *num = (int32_t)(part[0] * 10000000L + part[1] * 100000L + part[2] * 1000L + pre);
    return true;
}

ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    if (!pkgName || !versionNum) {
        hg_set_error("aclsysGetVersionNum", "%s is NULL", !pkgName ? "pkgName" : "versionNum");
        return ACL_ERROR_INVALID_PARAM;
    }
    char v[ACL_PKG_VERSION_MAX_SIZE];
    aclError rc = read_version("aclsysGetVersionNum", pkgName, v, sizeof v);
    if (rc)
        return rc;
    if (!version_number(v, versionNum)) {
        hg_set_error("aclsysGetVersionNum", "version (%s) of %s is not a CANN version", v, pkgName);
        return ACL_ERROR_INVALID_FILE;
    }
    return ACL_SUCCESS;
}

static const char *const g_pkg_dirs[] = {"cann", "runtime", "compiler", "hccl", "toolkit", "opp", "opp_kernel",
                                         "driver"};

ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    const char *func = "aclsysGetCANNVersion";
    if (!version) {
        hg_set_error(func, "version is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    if ((int)name < 0 || (int)name > ACL_PKG_NAME_DRIVER) {
        hg_set_error(func, "name (%d) is not an aclCANNPackageName value", (int)name);
        return ACL_ERROR_INVALID_PARAM;
    }
    memset(version, 0, sizeof *version);
    aclError rc = read_version(func, g_pkg_dirs[name], version->version, sizeof version->version);
    if (rc)
        return rc;
    char tmp[ACL_PKG_VERSION_MAX_SIZE];
    memcpy(tmp, version->version, sizeof tmp);
    char *fields[4] = {version->majorVersion, version->minorVersion, version->releaseVersion,
                       version->patchVersion};
    char *save = NULL;
    char *tok = strtok_r(tmp, ".", &save);
    for (int i = 0; i < 4 && tok; ++i, tok = strtok_r(NULL, ".", &save))
        snprintf(fields[i], ACL_PKG_VERSION_PARTS_MAX_SIZE, "%s", tok);
    return ACL_SUCCESS;
}
