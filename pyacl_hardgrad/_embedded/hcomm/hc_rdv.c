/* The rendezvous: root info, the server thread, the ranks' side, the key-value store. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "hc_rdv.h"

#define RI_MAGIC 0x48475249u   /* "HGRI" */
#define RI_VERSION 1u
#define FRAME_MAX (64u << 20)

/* ------------------------------------------------------------------ byte packing */

typedef struct buf {
    unsigned char *p;
    size_t len, cap, pos;
    int bad;
} buf;

static void b_need(buf *b, size_t n)
{
    if (b->bad || b->len + n <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
        b->bad = 1;
        return;
    }
    b->p = p;
    b->cap = cap;
}
static void b_bytes(buf *b, const void *p, size_t n)
{
    b_need(b, n);
    if (b->bad)
        return;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}
static void b_u32(buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                          (unsigned char)v};
    b_bytes(b, x, 4);
}
static void b_u64(buf *b, uint64_t v)
{
    b_u32(b, (uint32_t)(v >> 32));
    b_u32(b, (uint32_t)v);
}
static void b_str(buf *b, const void *s, size_t n)
{
    b_u32(b, (uint32_t)n);
    b_bytes(b, s, n);
}
static uint32_t r_u32(buf *b)
{
    if (b->pos + 4 > b->len) {
        b->bad = 1;
        return 0;
    }
    const unsigned char *x = b->p + b->pos;
    b->pos += 4;
    return ((uint32_t)x[0] << 24) | ((uint32_t)x[1] << 16) | ((uint32_t)x[2] << 8) | x[3];
}
static uint64_t r_u64(buf *b)
{
    uint64_t hi = r_u32(b);
    return (hi << 32) | r_u32(b);
}
/* A string/blob: pointer into b (not NUL-terminated) and its length. */
static const unsigned char *r_str(buf *b, size_t *n)
{
    *n = r_u32(b);
    if (b->bad || b->pos + *n > b->len) {
        b->bad = 1;
        *n = 0;
        return NULL;
    }
    const unsigned char *p = b->p + b->pos;
    b->pos += *n;
    return p;
}

/* ------------------------------------------------------------------ sockets */

static int write_all(int fd, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* One frame: u32 length (type byte + payload), type, payload. */
static int send_frame(int fd, char type, const buf *payload)
{
    buf f = {0};
    b_u32(&f, (uint32_t)(1 + (payload ? payload->len : 0)));
    b_bytes(&f, &type, 1);
    if (payload)
        b_bytes(&f, payload->p, payload->len);
    int r = f.bad ? -1 : write_all(fd, f.p, f.len);
    free(f.p);
    return r;
}

/* Read one frame with a deadline (ms, monotonic; < 0 none).  0, -1 (error/closed), -2 timeout. */
static int recv_frame(int fd, char *type, buf *payload, int64_t deadline)
{
    unsigned char hdr[4];
    size_t got = 0;
    unsigned char *dst = hdr;
    size_t want = 4;
    int stage = 0;
    for (;;) {
        while (got < want) {
            int wait = -1;
            if (deadline >= 0) {
                int64_t left = deadline - hc_now_ms();
                if (left <= 0)
                    return -2;
                wait = left > 1000 ? 1000 : (int)left;
            }
            struct pollfd pf = {fd, POLLIN, 0};
            int pr = poll(&pf, 1, wait);
            if (pr < 0 && errno != EINTR)
                return -1;
            if (pr <= 0)
                continue;
            ssize_t k = recv(fd, dst + got, want - got, 0);
            if (k < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (k <= 0)
                return -1;
            got += (size_t)k;
        }
        if (stage == 1)
            break;
        uint32_t len = ((uint32_t)hdr[0] << 24) | ((uint32_t)hdr[1] << 16) | ((uint32_t)hdr[2] << 8) | hdr[3];
        if (len < 1 || len > FRAME_MAX)
            return -1;
        payload->len = payload->pos = 0;
        b_need(payload, len);
        if (payload->bad)
            return -1;
        dst = payload->p;
        want = len;
        got = 0;
        stage = 1;
    }
    *type = (char)payload->p[0];
    payload->pos = 1;
    payload->len = want;
    return 0;
}

/* ------------------------------------------------------------------ host identity and address */

void hc_host_id(char *out, size_t cap)
{
    char host[128] = "";
    gethostname(host, sizeof host - 1);
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        fclose(f);
        boot[strcspn(boot, "\r\n")] = '\0';
    }
    snprintf(out, cap, "%s/%s", host, boot);
}

/* The address to listen on and advertise: HCCL_IF_IP, else the first IPv4 address of an
 * interface that is up and not loopback, else 127.0.0.1. */
static int pick_address(struct sockaddr_storage *ss, socklen_t *len, int *bind_exact, char *err, size_t errlen)
{
    memset(ss, 0, sizeof *ss);
    const char *ip = getenv("HCCL_IF_IP");
    if (ip && *ip) {
        struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
        if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
            a4->sin_family = AF_INET;
            *len = sizeof *a4;
        } else if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
            a6->sin6_family = AF_INET6;
            *len = sizeof *a6;
        } else {
            snprintf(err, errlen, "HCCL_IF_IP=%s is not an IPv4 or IPv6 address", ip);
            return -1;
        }
        *bind_exact = 1;
        return 0;
    }
    *bind_exact = 0;
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    a4->sin_family = AF_INET;
    a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *len = sizeof *a4;
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
                (i->ifa_flags & IFF_LOOPBACK))
                continue;
            a4->sin_addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            break;
        }
        freeifaddrs(ifs);
    }
    return 0;
}

/* ------------------------------------------------------------------ the server */

typedef struct sconn {
    int fd;
    int rank;          /* -1 until joined */
    int done;
    buf in;            /* bytes received, not yet a whole frame */
} sconn;

typedef struct kv {
    char *key;
    void *val;
    size_t len;
} kv;

typedef struct pget {
    int fd;
    char *key;
    int64_t deadline;
} pget;

typedef struct server {
    int lfd;
    uint64_t nonce_a, nonce_b;
    int timeout_ms;
    sconn *conns;
    size_t nconns, capconns;
    uint32_t nranks;      /* 0 until the first join */
    hc_member *members;
    int *joined;
    uint32_t njoined;
    int complete;
    kv *kvs;
    size_t nkvs;
    pget *gets;
    size_t ngets;
    int64_t deadline;
} server;

static void send_err(int fd, HcclResult code, const char *fmt, ...) HG_PRINTF(3, 4);
static void send_err(int fd, HcclResult code, const char *fmt, ...)
{
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    buf b = {0};
    b_u32(&b, (uint32_t)code);
    b_str(&b, text, strlen(text));
    if (!b.bad)
        send_frame(fd, 'E', &b);
    free(b.p);
}

static kv *kv_find(server *s, const char *key, size_t klen)
{
    for (size_t i = 0; i < s->nkvs; ++i)
        if (strlen(s->kvs[i].key) == klen && memcmp(s->kvs[i].key, key, klen) == 0)
            return &s->kvs[i];
    return NULL;
}

static void send_value(int fd, const kv *e)
{
    buf b = {0};
    b_str(&b, e->val, e->len);
    if (!b.bad)
        send_frame(fd, 'V', &b);
    free(b.p);
}

static void missing_list(server *s, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (uint32_t r = 0; r < s->nranks && n + 16 < cap; ++r)
        if (!s->joined[r])
            n += (size_t)snprintf(out + n, cap - n, "%s%u", n ? ", " : "", r);
}

static void srv_join(server *s, sconn *c, buf *in)
{
    uint64_t na = r_u64(in), nb = r_u64(in);
    uint32_t rank = r_u32(in), nranks = r_u32(in), pid = r_u32(in);
    int32_t device = (int32_t)r_u32(in);
    size_t hl;
    const unsigned char *host = r_str(in, &hl);
    if (in->bad) {
        send_err(c->fd, HCCL_E_INTERNAL, "malformed join message");
        return;
    }
    if (na != s->nonce_a || nb != s->nonce_b) {
        send_err(c->fd, HCCL_E_PARA, "the root info's nonce does not match this rendezvous' (a root info of another "
                 "HcclGetRootInfo call, or a corrupted copy)");
        return;
    }
    if (s->complete) {
        send_err(c->fd, HCCL_E_PARA, "rank %u joined after all %u ranks met: a root info serves one communicator",
                 rank, s->nranks);
        return;
    }
    if (s->nranks == 0) {
        s->nranks = nranks;
        s->members = calloc(nranks, sizeof *s->members);
        s->joined = calloc(nranks, sizeof *s->joined);
        if (!s->members || !s->joined) {
            send_err(c->fd, HCCL_E_MEMORY, "out of memory for %u ranks", nranks);
            s->nranks = 0;
            return;
        }
    } else if (nranks != s->nranks) {
        send_err(c->fd, HCCL_E_PARA, "nRanks %u differs from the %u the first rank to join gave", nranks, s->nranks);
        return;
    }
    if (rank >= s->nranks) {
        send_err(c->fd, HCCL_E_PARA, "rank %u is out of range for nRanks %u", rank, s->nranks);
        return;
    }
    if (s->joined[rank]) {
        send_err(c->fd, HCCL_E_PARA, "rank %u joined already (pid %u, device %d): every rank must be unique", rank,
                 s->members[rank].pid, (int)s->members[rank].device);
        return;
    }
    s->joined[rank] = 1;
    s->njoined++;
    c->rank = (int)rank;
    s->members[rank].pid = pid;
    s->members[rank].device = device;
    size_t n = hl < HC_HOST_ID_MAX - 1 ? hl : HC_HOST_ID_MAX - 1;
    memcpy(s->members[rank].host, host, n);
    s->members[rank].host[n] = '\0';
    s->deadline = hc_now_ms() + s->timeout_ms;
    if (s->njoined < s->nranks)
        return;
    s->complete = 1;
    buf b = {0};
    b_u32(&b, s->nranks);
    for (uint32_t r = 0; r < s->nranks; ++r) {
        b_u32(&b, s->members[r].pid);
        b_u32(&b, (uint32_t)s->members[r].device);
        b_str(&b, s->members[r].host, strlen(s->members[r].host));
    }
    for (size_t i = 0; i < s->nconns; ++i)
        if (s->conns[i].rank >= 0 && !b.bad)
            send_frame(s->conns[i].fd, 'M', &b);
    free(b.p);
}

static void srv_frame(server *s, sconn *c, char type, buf *in)
{
    if (type == 'J') {
        srv_join(s, c, in);
    } else if (type == 'S') {
        size_t kl, vl;
        const unsigned char *k = r_str(in, &kl);
        const unsigned char *v = r_str(in, &vl);
        if (in->bad)
            return;
        kv *e = kv_find(s, (const char *)k, kl);
        if (!e) {
            kv *p = realloc(s->kvs, (s->nkvs + 1) * sizeof *p);
            if (!p)
                return;
            s->kvs = p;
            e = &s->kvs[s->nkvs++];
            e->key = strndup((const char *)k, kl);
            e->val = NULL;
            e->len = 0;
        }
        free(e->val);
        e->val = malloc(vl ? vl : 1);
        if (e->val && vl)
            memcpy(e->val, v, vl);
        e->len = vl;
        send_frame(c->fd, 'K', NULL);
        for (size_t i = 0; i < s->ngets;) {       /* waiting gets of this key */
            if (strcmp(s->gets[i].key, e->key) == 0) {
                send_value(s->gets[i].fd, e);
                free(s->gets[i].key);
                s->gets[i] = s->gets[--s->ngets];
            } else {
                ++i;
            }
        }
    } else if (type == 'G') {
        size_t kl;
        const unsigned char *k = r_str(in, &kl);
        int32_t t = (int32_t)r_u32(in);
        if (in->bad)
            return;
        kv *e = kv_find(s, (const char *)k, kl);
        if (e) {
            send_value(c->fd, e);
            return;
        }
        pget *p = realloc(s->gets, (s->ngets + 1) * sizeof *p);
        if (!p)
            return;
        s->gets = p;
        s->gets[s->ngets].fd = c->fd;
        s->gets[s->ngets].key = strndup((const char *)k, kl);
        s->gets[s->ngets].deadline = t < 0 ? INT64_MAX : hc_now_ms() + t;
        s->ngets++;
    } else if (type == 'D') {
        c->done = 1;
    }
}

static int srv_all_done(server *s)
{
    if (!s->complete)
        return 0;
    uint32_t done = 0;
    for (size_t i = 0; i < s->nconns; ++i)
        if (s->conns[i].rank >= 0 && (s->conns[i].done || s->conns[i].fd < 0))
            done++;
    return done >= s->nranks;
}

static void srv_drop(server *s, size_t i)
{
    sconn *c = &s->conns[i];
    for (size_t g = 0; g < s->ngets;) {
        if (s->gets[g].fd == c->fd) {
            free(s->gets[g].key);
            s->gets[g] = s->gets[--s->ngets];
        } else {
            ++g;
        }
    }
    close(c->fd);
    c->fd = -1;
    c->done = 1;
    free(c->in.p);
    c->in.p = NULL;
}

static void srv_free(server *s)
{
    for (size_t i = 0; i < s->nconns; ++i)
        if (s->conns[i].fd >= 0)
            srv_drop(s, i);
    for (size_t i = 0; i < s->nkvs; ++i) {
        free(s->kvs[i].key);
        free(s->kvs[i].val);
    }
    for (size_t i = 0; i < s->ngets; ++i)
        free(s->gets[i].key);
    free(s->kvs);
    free(s->gets);
    free(s->conns);
    free(s->members);
    free(s->joined);
    close(s->lfd);
    free(s);
}

static void *srv_main(void *arg)
{
    server *s = arg;
    struct pollfd *pf = NULL;
    for (;;) {
        if (srv_all_done(s))
            break;
        int64_t now = hc_now_ms();
        if (now >= s->deadline) {
            char missing[512];
            if (!s->complete) {
                missing_list(s, missing, sizeof missing);
                for (size_t i = 0; i < s->nconns; ++i)
                    if (s->conns[i].fd >= 0 && s->conns[i].rank >= 0)
                        send_err(s->conns[i].fd, HCCL_E_TIMEOUT,
                                 "rank(s) %s of %u never joined within HCCL_CONNECT_TIMEOUT=%d s", s->nranks ?
                                 missing : "?", s->nranks, s->timeout_ms / 1000);
                HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, "HcclGetRootInfo", "rendezvous gave up: rank(s) %s of %u never "
                       "joined within %d s", s->nranks ? missing : "(none joined)", s->nranks, s->timeout_ms / 1000);
            }
            break;
        }
        for (size_t g = 0; g < s->ngets;) {       /* gets that waited long enough */
            if (s->gets[g].deadline <= now) {
                send_err(s->gets[g].fd, HCCL_E_TIMEOUT, "store key %s did not appear in time", s->gets[g].key);
                free(s->gets[g].key);
                s->gets[g] = s->gets[--s->ngets];
            } else {
                ++g;
            }
        }
        struct pollfd *np = realloc(pf, (s->nconns + 1) * sizeof *pf);
        if (!np)
            break;
        pf = np;
        pf[0].fd = s->lfd;
        pf[0].events = POLLIN;
        for (size_t i = 0; i < s->nconns; ++i) {
            pf[i + 1].fd = s->conns[i].fd;
            pf[i + 1].events = POLLIN;
            pf[i + 1].revents = 0;
        }
        int pr = poll(pf, s->nconns + 1, 100);
        if (pr <= 0)
            continue;
        if (pf[0].revents & POLLIN) {
            int fd = accept(s->lfd, NULL, NULL);
            if (fd >= 0) {
                sconn *nc = realloc(s->conns, (s->nconns + 1) * sizeof *nc);
                if (!nc) {
                    close(fd);
                } else {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    s->conns = nc;
                    memset(&s->conns[s->nconns], 0, sizeof *nc);
                    s->conns[s->nconns].fd = fd;
                    s->conns[s->nconns].rank = -1;
                    s->nconns++;
                }
            }
        }
        size_t polled = (size_t)(np ? s->nconns : 0);
        for (size_t i = 0; i < polled && i + 1 < (size_t)pr + s->nconns + 1; ++i) {
            if (i + 1 > s->nconns || s->conns[i].fd < 0 || !(pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            sconn *c = &s->conns[i];
            b_need(&c->in, 65536);
            if (c->in.bad) {
                srv_drop(s, i);
                continue;
            }
            ssize_t k = recv(c->fd, c->in.p + c->in.len, c->in.cap - c->in.len, 0);
            if (k <= 0) {
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                    continue;
                srv_drop(s, i);
                continue;
            }
            c->in.len += (size_t)k;
            for (;;) {                                /* every whole frame received */
                if (c->in.len < 4)
                    break;
                uint32_t len = ((uint32_t)c->in.p[0] << 24) | ((uint32_t)c->in.p[1] << 16) |
                               ((uint32_t)c->in.p[2] << 8) | c->in.p[3];
                if (len < 1 || len > FRAME_MAX) {
                    srv_drop(s, i);
                    break;
                }
                if (c->in.len < 4 + (size_t)len) {
                    b_need(&c->in, 4 + (size_t)len - c->in.len);
                    break;
                }
                buf fr = {c->in.p + 4, len, len, 1, 0};
                srv_frame(s, &s->conns[i], (char)c->in.p[4], &fr);
                c = &s->conns[i];
                if (c->fd < 0)
                    break;
                memmove(c->in.p, c->in.p + 4 + len, c->in.len - 4 - len);
                c->in.len -= 4 + (size_t)len;
            }
        }
    }
    free(pf);
    srv_free(s);
    return NULL;
}

/* ------------------------------------------------------------------ root info */

typedef struct ri_view {
    uint32_t family;          /* 4 or 6 */
    uint16_t port;
    unsigned char addr[16];
    uint64_t nonce_a, nonce_b;
} ri_view;

static void ri_write(HcclRootInfo *ri, const ri_view *v)
{
    memset(ri, 0, sizeof *ri);
    buf b = {0};
    b_u32(&b, RI_MAGIC);
    b_u32(&b, RI_VERSION);
    b_u32(&b, v->family);
    b_u32(&b, v->port);
    b_bytes(&b, v->addr, 16);
    b_u64(&b, v->nonce_a);
    b_u64(&b, v->nonce_b);
    if (!b.bad)
        memcpy(ri->internal, b.p, b.len);
    free(b.p);
    /* a readable note for whoever looks at the bytes */
    char ip[INET6_ADDRSTRLEN] = "?";
    inet_ntop(v->family == 6 ? AF_INET6 : AF_INET, v->addr, ip, sizeof ip);
    snprintf(ri->internal + 64, 128, "pyacl_hardgrad rendezvous %s port %u", ip, (unsigned)v->port);
}

static int ri_read(const HcclRootInfo *ri, ri_view *v)
{
    buf b = {(unsigned char *)(uintptr_t)ri->internal, 64, 64, 0, 0};
    if (r_u32(&b) != RI_MAGIC || r_u32(&b) != RI_VERSION)
        return -1;
    v->family = r_u32(&b);
    v->port = (uint16_t)r_u32(&b);
    if (b.pos + 16 > b.len)
        return -1;
    memcpy(v->addr, b.p + b.pos, 16);
    b.pos += 16;
    v->nonce_a = r_u64(&b);
    v->nonce_b = r_u64(&b);
    return b.bad || (v->family != 4 && v->family != 6) ? -1 : 0;
}

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    static const char *const F = "HcclGetRootInfo";
    if (!rootInfo)
        return hc_fail(HCCL_E_PTR, F, "rootInfo is NULL");
    struct sockaddr_storage ss;
    socklen_t sl;
    int exact;
    char err[200];
    if (pick_address(&ss, &sl, &exact, err, sizeof err) != 0)
        return hc_fail(HCCL_E_PARA, F, "%s", err);
    int fam = ss.ss_family;
    int fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return hc_fail(HCCL_E_SYSCALL, F, "socket: %s", strerror(errno));
    struct sockaddr_storage bind_to = ss;
    if (!exact) {                        /* listen everywhere, advertise the picked address */
        ((struct sockaddr_in *)&bind_to)->sin_addr.s_addr = htonl(INADDR_ANY);
    }
    if (bind(fd, (struct sockaddr *)&bind_to, sl) != 0 || listen(fd, 1024) != 0) {
        int e = errno;
        close(fd);
        return hc_fail(HCCL_E_TCP_CONNECT, F, "cannot listen for the rendezvous: %s", strerror(e));
    }
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    getsockname(fd, (struct sockaddr *)&got, &gl);
    ri_view v;
    memset(&v, 0, sizeof v);
    if (fam == AF_INET6) {
        v.family = 6;
        v.port = ntohs(((struct sockaddr_in6 *)&got)->sin6_port);
        memcpy(v.addr, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
    } else {
        v.family = 4;
        v.port = ntohs(((struct sockaddr_in *)&got)->sin_port);
        memcpy(v.addr, &((struct sockaddr_in *)&ss)->sin_addr, 4);
    }
    if (getrandom(&v.nonce_a, sizeof v.nonce_a, 0) != (ssize_t)sizeof v.nonce_a ||
        getrandom(&v.nonce_b, sizeof v.nonce_b, 0) != (ssize_t)sizeof v.nonce_b) {
        close(fd);
        return hc_fail(HCCL_E_SYSCALL, F, "getrandom: %s", strerror(errno));
    }
    server *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        return hc_fail(HCCL_E_MEMORY, F, "out of memory");
    }
    s->lfd = fd;
    s->nonce_a = v.nonce_a;
    s->nonce_b = v.nonce_b;
    s->timeout_ms = hc_connect_timeout_ms();
    s->deadline = hc_now_ms() + s->timeout_ms;
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &at, srv_main, s);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        close(fd);
        free(s);
        return hc_fail(HCCL_E_SYSCALL, F, "cannot start the rendezvous thread: %s", strerror(rc));
    }
    ri_write(rootInfo, &v);
    char ip[INET6_ADDRSTRLEN] = "?";
    inet_ntop(fam, v.addr, ip, sizeof ip);
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, F, "rendezvous listening on %s port %u", ip, (unsigned)v.port);
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ the ranks' side */

HcclResult hc_rdv_join(const HcclRootInfo *rootInfo, uint32_t rank, uint32_t nranks, int device, const char *func,
                       hc_member **members, hc_store **store, uint64_t *nonce)
{
    ri_view v;
    if (ri_read(rootInfo, &v) != 0)
        return hc_fail(HCCL_E_PARA, func, "rootInfo does not hold a root info made by HcclGetRootInfo (bad magic or "
                       "version)");
    int timeout = hc_connect_timeout_ms();
    int64_t start = hc_now_ms();
    int64_t deadline = start + timeout;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    if (v.family == 6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(v.port);
        memcpy(&a->sin6_addr, v.addr, 16);
        sl = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(v.port);
        memcpy(&a->sin_addr, v.addr, 4);
        sl = sizeof *a;
    }
    char ip[INET6_ADDRSTRLEN] = "?";
    inet_ntop(v.family == 6 ? AF_INET6 : AF_INET, v.addr, ip, sizeof ip);
    int fd = -1;
    int last_errno = 0;
    while (fd < 0) {
        fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return hc_fail(HCCL_E_SYSCALL, func, "socket: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *)&ss, sl) == 0)
            break;
        last_errno = errno;
        close(fd);
        fd = -1;
        if (hc_now_ms() >= deadline)
            return hc_fail(HCCL_E_TCP_CONNECT, func, "cannot reach the rendezvous at %s port %u within "
                           "HCCL_CONNECT_TIMEOUT=%d s: %s (has the process that called HcclGetRootInfo exited?)",
                           ip, (unsigned)v.port, timeout / 1000, strerror(last_errno));
        usleep(50000);
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char host[HC_HOST_ID_MAX];
    hc_host_id(host, sizeof host);
    buf b = {0};
    b_u64(&b, v.nonce_a);
    b_u64(&b, v.nonce_b);
    b_u32(&b, rank);
    b_u32(&b, nranks);
    b_u32(&b, (uint32_t)getpid());
    b_u32(&b, (uint32_t)device);
    b_str(&b, host, strlen(host));
    int sr = b.bad ? -1 : send_frame(fd, 'J', &b);
    free(b.p);
    if (sr != 0) {
        close(fd);
        return hc_fail(HCCL_E_TCP_TRANSFER, func, "cannot send to the rendezvous at %s port %u", ip, (unsigned)v.port);
    }
    buf in = {0};
    char type = 0;
    /* the server times out first (its clock restarts at every join) and names the missing ranks */
    int rr = recv_frame(fd, &type, &in, deadline + 3000);
    HcclResult res = HCCL_SUCCESS;
    if (rr == -2) {
        res = hc_fail(HCCL_E_TIMEOUT, func, "rank %u: the other ranks of %u did not all join the rendezvous at %s "
                      "port %u within HCCL_CONNECT_TIMEOUT=%d s", rank, nranks, ip, (unsigned)v.port, timeout / 1000);
    } else if (rr != 0) {
        res = hc_fail(HCCL_E_TCP_TRANSFER, func, "rank %u: the rendezvous at %s port %u closed the connection (its "
                      "process exited, or it gave up)", rank, ip, (unsigned)v.port);
    } else if (type == 'E') {
        uint32_t code = r_u32(&in);
        size_t tl;
        const unsigned char *t = r_str(&in, &tl);
        res = hc_fail((HcclResult)code, func, "rank %u of %u: %.*s", rank, nranks, (int)tl, t ? (const char *)t : "");
    } else if (type != 'M') {
        res = hc_fail(HCCL_E_INTERNAL, func, "unexpected message from the rendezvous");
    }
    if (res != HCCL_SUCCESS) {
        free(in.p);
        close(fd);
        return res;
    }
    uint32_t n = r_u32(&in);
    hc_member *m = calloc(n ? n : 1, sizeof *m);
    hc_store *st = calloc(1, sizeof *st);
    if (!m || !st || n != nranks) {
        free(m);
        free(st);
        free(in.p);
        close(fd);
        return hc_fail(n != nranks ? HCCL_E_INTERNAL : HCCL_E_MEMORY, func, "bad membership from the rendezvous");
    }
    for (uint32_t r = 0; r < n; ++r) {
        m[r].pid = r_u32(&in);
        m[r].device = (int32_t)r_u32(&in);
        size_t hl;
        const unsigned char *h = r_str(&in, &hl);
        size_t k = hl < HC_HOST_ID_MAX - 1 ? hl : HC_HOST_ID_MAX - 1;
        if (h)
            memcpy(m[r].host, h, k);
        m[r].host[k] = '\0';
    }
    free(in.p);
    st->fd = fd;
    pthread_mutex_init(&st->mu, NULL);
    *members = m;
    *store = st;
    *nonce = v.nonce_a ^ (v.nonce_b * 0x9e3779b97f4a7c15ull);
    return HCCL_SUCCESS;
}

void hc_store_close(hc_store *s)
{
    if (!s)
        return;
    send_frame(s->fd, 'D', NULL);
    close(s->fd);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int hc_store_set(void *ctx, const char *key, const void *val, size_t len)
{
    hc_store *s = ctx;
    buf b = {0};
    b_str(&b, key, strlen(key));
    b_str(&b, val, len);
    int r = -1;
    pthread_mutex_lock(&s->mu);
    if (!b.bad && send_frame(s->fd, 'S', &b) == 0) {
        buf in = {0};
        char type;
        if (recv_frame(s->fd, &type, &in, -1) == 0 && type == 'K')
            r = 0;
        free(in.p);
    }
    pthread_mutex_unlock(&s->mu);
    free(b.p);
    return r;
}

int hc_store_get(void *ctx, const char *key, void **val, size_t *len, int timeout_ms)
{
    hc_store *s = ctx;
    buf b = {0};
    b_str(&b, key, strlen(key));
    b_u32(&b, (uint32_t)timeout_ms);
    int r = -1;
    pthread_mutex_lock(&s->mu);
    if (!b.bad && send_frame(s->fd, 'G', &b) == 0) {
        buf in = {0};
        char type;
        if (recv_frame(s->fd, &type, &in, timeout_ms < 0 ? -1 : hc_now_ms() + timeout_ms + 2000) == 0 &&
            type == 'V') {
            size_t vl;
            const unsigned char *v = r_str(&in, &vl);
            void *copy = malloc(vl ? vl : 1);
            if (v && copy) {
                memcpy(copy, v, vl);
                *val = copy;
                *len = vl;
                r = 0;
            } else {
                free(copy);
            }
        }
        free(in.p);
    }
    pthread_mutex_unlock(&s->mu);
    free(b.p);
    return r;
}
