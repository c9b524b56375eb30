/*
 * pyacl_hardgrad embedded runtime: the cross-host collective engine on Gloo (libhg_net_gloo.so).
 *
 * Implements every call of hg_net.h with Gloo's TCP transport: open meets the other ranks
 * through libhcomm's key-value store (a gloo::rendezvous::Store that forwards to hg_net_store,
 * every key under the given prefix) and connects a full mesh of TCP pairs; barrier, allgather,
 * alltoallv and broadcast run Gloo's algorithms on byte buffers; send and recv are Gloo's
 * unbound-buffer operations with the slot equal to the tag, each message preceded by its length
 * (8 bytes, on the tag's header slot) so that a recv of another size fails cleanly instead of
 * overrunning (Gloo aborts the process when more bytes arrive than a receive posted).  A send
 * copies its bytes and returns at once; a per-context thread waits for the copies' completion
 * and frees them, and close waits for all of them.  No C++ exception crosses the C ABI: every call catches them
 * and returns -1 with the reason readable through last_error (open: written into err).
 *
 * After Gloo itself failed (a peer vanished, a timeout passed) the context is unusable: every
 * later call fails at once with the first failure's reason.  A call refused for a bad argument
 * leaves the context usable.
 */
#include "hg_net.h"

#include <gloo/allgather.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/context.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

/* What "no timeout" becomes where Gloo needs a duration: a year. */
constexpr Millis kForever = std::chrono::hours(24 * 365);
/* Tags of send/recv are Gloo slots as they are; Gloo's collectives use slots whose top byte is
 * their prefix (1..8), so tags below 2^56 can never meet a collective's messages. */
constexpr uint64_t kTagLimit = uint64_t(1) << 56;
/* The slot of the length header that precedes the message of a tag. */
constexpr uint64_t kHeaderSlot = uint64_t(1) << 63;

Millis as_duration(int timeout_ms) {
    return timeout_ms < 0 ? kForever : Millis(timeout_ms);
}

void write_text(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void write_text(char *dst, size_t cap, const char *fmt, ...) {
    if (dst == nullptr || cap == 0) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

/* A refused argument: reported, the context stays usable. */
class ArgumentError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

/* ---- rendezvous: Gloo's store interface over hg_net_store ------------------------------- */

class HgStore final : public gloo::rendezvous::Store {
  public:
    HgStore(const hg_net_store &store, const char *prefix, int timeout_ms)
        : store_(store), prefix_(prefix), timeout_ms_(timeout_ms),
          deadline_(Clock::now() + as_duration(timeout_ms)) {}

    void set(const std::string &key, const std::vector<char> &data) override {
        const std::string full = prefix_ + key;
        if (store_.set(store_.ctx, full.c_str(), data.data(), data.size()) != 0) {
            throw std::runtime_error(fmt("the rendezvous store refused to set key '%s'", full.c_str()));
        }
    }

    std::vector<char> get(const std::string &key) override {
        return fetch(key, remaining_ms());
    }

    void wait(const std::vector<std::string> &keys) override {
        for (const auto &k : keys) {
            fetch(k, remaining_ms());
        }
    }

    void wait(const std::vector<std::string> &keys, const Millis &timeout) override {
        for (const auto &k : keys) {
            int ms = remaining_ms();
            if (timeout.count() >= 0 && (ms < 0 || timeout.count() < ms)) {
                ms = static_cast<int>(std::min<long long>(timeout.count(), 0x7fffffff));
            }
            fetch(k, ms);
        }
    }

  private:
    /* Milliseconds left until open's deadline (-1: no deadline). */
    int remaining_ms() const {
        if (timeout_ms_ < 0) {
            return -1;
        }
        const auto left = std::chrono::duration_cast<Millis>(deadline_ - Clock::now()).count();
        return left <= 0 ? 0 : static_cast<int>(left);
    }

    /* Gloo's rendezvous keys name ranks: "rank_<r>" (host names), "<r>" (pair addresses). */
    static int rank_of_key(const std::string &key) {
        std::string digits = key.compare(0, 5, "rank_") == 0 ? key.substr(5) : key;
        if (digits.empty() || digits.size() > 9 ||
            digits.find_first_not_of("0123456789") != std::string::npos) {
            return -1;
        }
        return std::atoi(digits.c_str());
    }

    std::vector<char> fetch(const std::string &key, int timeout_ms) {
        const std::string full = prefix_ + key;
        void *val = nullptr;
        size_t len = 0;
        const auto t0 = Clock::now();
        if (store_.get(store_.ctx, full.c_str(), &val, &len, timeout_ms) != 0) {
            const long long waited = std::chrono::duration_cast<Millis>(Clock::now() - t0).count();
            const int r = rank_of_key(key);
            const bool timed_out = timeout_ms >= 0 && waited + 50 >= timeout_ms;
            if (timed_out && r >= 0) {
                throw std::runtime_error(fmt("rank %d did not join within %d ms (rendezvous key '%s' "
                                             "never appeared in the store)", r, timeout_ms_,
                                             full.c_str()));
            }
            if (timed_out) {
                throw std::runtime_error(fmt("rendezvous key '%s' did not appear within %d ms",
                                             full.c_str(), timeout_ms_));
            }
            throw std::runtime_error(fmt("the rendezvous store failed after %lld ms while waiting "
                                         "for key '%s' (is the root rank gone?)", waited, full.c_str()));
        }
        std::vector<char> out;
        try {
            out.assign(static_cast<const char *>(val), static_cast<const char *>(val) + len);
        } catch (...) {
            std::free(val);
            throw;
        }
        std::free(val);
        return out;
    }

    hg_net_store store_;
    std::string prefix_;
    int timeout_ms_;
    Clock::time_point deadline_;
};

/* ---- the address the TCP device binds to ------------------------------------------------ */

bool resolves(const std::string &host, std::string *why) {
    struct addrinfo hints;
    std::memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    struct addrinfo *res = nullptr;
    const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
    if (rc != 0) {
        if (why != nullptr) {
            *why = gai_strerror(rc);
        }
        return false;
    }
    freeaddrinfo(res);
    return true;
}

/* The first IPv4 address of an interface that is up and not loopback, numeric; "" if none. */
std::string first_interface_address() {
    struct ifaddrs *ifap = nullptr;
    if (getifaddrs(&ifap) != 0) {
        return "";
    }
    std::string out;
    for (struct ifaddrs *ifa = ifap; ifa != nullptr; ifa = ifa->ifa_next) {
        if (ifa->ifa_addr == nullptr || ifa->ifa_addr->sa_family != AF_INET ||
            (ifa->ifa_flags & IFF_UP) == 0 || (ifa->ifa_flags & IFF_LOOPBACK) != 0) {
            continue;
        }
        char text[INET_ADDRSTRLEN];
        const auto *sin = reinterpret_cast<const struct sockaddr_in *>(ifa->ifa_addr);
        if (inet_ntop(AF_INET, &sin->sin_addr, text, sizeof text) != nullptr) {
            out = text;
            break;
        }
    }
    freeifaddrs(ifap);
    return out;
}

/* local_addr as given, checked to resolve (Gloo's own lookup does not check); else this
 * host's name when it resolves, else the first non-loopback IPv4 interface, else loopback. */
std::string bind_host(const char *local_addr) {
    std::string why;
    if (local_addr != nullptr && local_addr[0] != '\0') {
        if (!resolves(local_addr, &why)) {
            throw ArgumentError(fmt("local_addr '%s' does not resolve to an address: %s", local_addr,
                                    why.c_str()));
        }
        return local_addr;
    }
    char host[256] = {0};
    if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0' && resolves(host, nullptr)) {
        return host;
    }
    std::string iface = first_interface_address();
    return iface.empty() ? "127.0.0.1" : iface;
}

/* ---- SIGPIPE ----------------------------------------------------------------------------
 * Gloo writes to its sockets with writev: a peer that went away would raise SIGPIPE, whose
 * default action ends the process.  Every call blocks SIGPIPE on the calling thread while it
 * runs (so a write fails with EPIPE and the call with a message), takes back a SIGPIPE it
 * raised itself, and restores the thread's mask; Gloo's event loop thread and the send thread
 * are started with SIGPIPE blocked and keep it blocked. */
class SigpipeBlocked {
  public:
    SigpipeBlocked() noexcept {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe, &old_);
        sigset_t pending;
        sigemptyset(&pending);
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    }
    ~SigpipeBlocked() {
        if (!was_pending_) {
            sigset_t pending;
            sigemptyset(&pending);
            sigpending(&pending);
            if (sigismember(&pending, SIGPIPE) == 1) {
                sigset_t pipe;
                sigemptyset(&pipe);
                sigaddset(&pipe, SIGPIPE);
                struct timespec zero = {0, 0};
                sigtimedwait(&pipe, nullptr, &zero);
            }
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeBlocked(const SigpipeBlocked &) = delete;
    SigpipeBlocked &operator=(const SigpipeBlocked &) = delete;

  private:
    sigset_t old_;
    bool was_pending_ = false;
};

/* ---- the engine context ----------------------------------------------------------------- */

struct PendingSend {
    uint64_t length; /* the header's value: bytes */
    std::unique_ptr<gloo::transport::UnboundBuffer> header;
    std::unique_ptr<char[]> copy;
    std::unique_ptr<gloo::transport::UnboundBuffer> buf; /* none for 0 bytes */
    int peer;
    uint64_t tag;
    size_t bytes;
};

class Engine {
  public:
    Engine(std::shared_ptr<gloo::Context> ctx, int timeout_ms)
        : ctx_(std::move(ctx)), op_timeout_(as_duration(timeout_ms)) {
        error_[0] = '\0';
    }

    ~Engine() { shutdown(); }

    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    /* Runs body; returns 0, or -1 with the reason in last_error.  Nothing escapes. */
    template <typename Body> int guarded(const char *call, Body &&body) noexcept {
        try {
            {
                std::lock_guard<std::mutex> lk(mu_);
                if (!failure_.empty()) {
                    write_text(error_, sizeof error_, "%s: the engine failed earlier and cannot be used: %s",
                               call, failure_.c_str());
                    return -1;
                }
            }
            body();
            return 0;
        } catch (const ArgumentError &e) {
            write_text(error_, sizeof error_, "%s: %s", call, e.what());
        } catch (const std::exception &e) {
            fail(call, e.what());
        } catch (...) {
            fail(call, "unknown exception");
        }
        return -1;
    }

    int rank() const { return ctx_->rank; }
    int size() const { return ctx_->size; }

    const char *last_error() const { return error_[0] != '\0' ? error_ : "no error"; }

    void barrier() {
        gloo::BarrierOptions opts(ctx_);
        opts.setTag(next_tag());
        opts.setTimeout(op_timeout_);
        gloo::barrier(opts);
    }

    void allgather(const void *send, void *recv, size_t bytes) {
        const size_t n = static_cast<size_t>(size());
        if (bytes == 0) {
            next_tag();
            return;
        }
        if (send == nullptr || recv == nullptr) {
            throw ArgumentError(fmt("%s is NULL with bytes = %zu", send == nullptr ? "send" : "recv", bytes));
        }
        if (bytes > SIZE_MAX / n) {
            throw ArgumentError(fmt("bytes = %zu times %zu ranks overflows", bytes, n));
        }
        char *out = static_cast<char *>(recv);
        const char *in = static_cast<const char *>(send);
        const char *own = out + static_cast<size_t>(rank()) * bytes;
        const bool in_place = in == own;
        if (!in_place && in < out + bytes * n && out < in + bytes) {
            throw ArgumentError("send overlaps recv other than as this rank's block (in place)");
        }
        gloo::AllgatherOptions opts(ctx_);
        if (!in_place) {
            opts.setInput<char>(const_cast<char *>(in), bytes);
        }
        opts.setOutput<char>(out, bytes * n);
        opts.setTag(next_tag());
        opts.setTimeout(op_timeout_);
        gloo::allgather(opts);
    }

    void alltoallv(const void *send, const size_t *scounts, const size_t *sdispls, void *recv,
                   const size_t *rcounts, const size_t *rdispls) {
        const int n = size();
        const int me = rank();
        if (scounts == nullptr || sdispls == nullptr || rcounts == nullptr || rdispls == nullptr) {
            throw ArgumentError(fmt("%s is NULL (one entry per rank is required)",
                                    scounts == nullptr ? "scounts" : sdispls == nullptr ? "sdispls"
                                                                   : rcounts == nullptr ? "rcounts"
                                                                                        : "rdispls"));
        }
        const size_t send_end = extent("s", scounts, sdispls, n);
        const size_t recv_end = extent("r", rcounts, rdispls, n);
        if (send_end > 0 && send == nullptr) {
            throw ArgumentError("send is NULL with a nonzero send count");
        }
        if (recv_end > 0 && recv == nullptr) {
            throw ArgumentError("recv is NULL with a nonzero receive count");
        }
        if (scounts[me] != rcounts[me]) {
            throw ArgumentError(fmt("scounts[%d] = %zu differs from rcounts[%d] = %zu (this rank's block "
                                    "to itself)", me, scounts[me], me, rcounts[me]));
        }
        const char *in = send != nullptr ? static_cast<const char *>(send) : &dummy_;
        char *out = recv != nullptr ? static_cast<char *>(recv) : &dummy_;
        if (send_end > 0 && recv_end > 0 && in < out + recv_end && out < in + send_end) {
            throw ArgumentError("send and recv overlap (alltoallv is not in place)");
        }
        const uint32_t tag = next_tag();
        if (packed(scounts, sdispls, n) && packed(rcounts, rdispls, n)) {
            /* Displacements are the running sums of the counts: Gloo's alltoallv as it is. */
            gloo::AlltoallvOptions opts(ctx_);
            opts.setInput<char>(const_cast<char *>(in), std::vector<int64_t>(scounts, scounts + n));
            opts.setOutput<char>(out, std::vector<int64_t>(rcounts, rcounts + n));
            opts.setTag(tag);
            opts.setTimeout(op_timeout_);
            gloo::alltoallv(opts);
            return;
        }
        /* Free displacements: the same exchange as Gloo's alltoallv (same slot, same message
         * per peer and order), with each block at its own offset, so that ranks taking either
         * path interoperate. */
        const uint64_t slot = gloo::Slot::build(gloo::kAlltoallSlotPrefix, tag);
        auto ibuf = ctx_->createUnboundBuffer(const_cast<char *>(in), send_end);
        auto obuf = ctx_->createUnboundBuffer(out, recv_end);
        if (scounts[me] > 0) {
            std::memcpy(out + rdispls[me], in + sdispls[me], scounts[me]);
        }
        for (int i = 1; i < n; i++) {
            const int to = (me + i) % n;
            const int from = (me + n - i) % n;
            ibuf->send(to, slot, sdispls[to], scounts[to]);
            obuf->recv(from, slot, rdispls[from], rcounts[from]);
        }
        for (int i = 1; i < n; i++) {
            ibuf->waitSend(op_timeout_);
            obuf->waitRecv(op_timeout_);
        }
    }

    void broadcast(void *buf, size_t bytes, int root) {
        if (root < 0 || root >= size()) {
            throw ArgumentError(fmt("root = %d is not a rank of this communicator (0 .. %d)", root, size() - 1));
        }
        if (bytes == 0) {
            next_tag();
            return;
        }
        if (buf == nullptr) {
            throw ArgumentError(fmt("buf is NULL with bytes = %zu", bytes));
        }
        gloo::BroadcastOptions opts(ctx_);
        opts.setOutput<char>(static_cast<char *>(buf), bytes);
        opts.setRoot(root);
        opts.setTag(next_tag());
        opts.setTimeout(op_timeout_);
        gloo::broadcast(opts);
    }

    void send(const void *buf, size_t bytes, int peer, uint64_t tag) {
        check_peer(peer, tag);
        if (bytes > 0 && buf == nullptr) {
            throw ArgumentError(fmt("buf is NULL with bytes = %zu", bytes));
        }
        std::unique_ptr<PendingSend> p(new PendingSend());
        p->peer = peer;
        p->tag = tag;
        p->bytes = bytes;
        p->length = bytes;
        p->header = ctx_->createUnboundBuffer(&p->length, sizeof p->length);
        if (bytes > 0) {
            p->copy.reset(new char[bytes]);
            std::memcpy(p->copy.get(), buf, bytes);
            p->buf = ctx_->createUnboundBuffer(p->copy.get(), bytes);
        }
        start_reaper();
        p->header->send(peer, kHeaderSlot | tag);
        if (p->buf) {
            p->buf->send(peer, tag);
        }
        std::lock_guard<std::mutex> lk(mu_);
        pending_.push_back(std::move(p));
        cv_.notify_all();
    }

    void recv(void *buf, size_t bytes, int peer, uint64_t tag) {
        check_peer(peer, tag);
        if (bytes > 0 && buf == nullptr) {
            throw ArgumentError(fmt("buf is NULL with bytes = %zu", bytes));
        }
        uint64_t length = 0;
        auto header = ctx_->createUnboundBuffer(&length, sizeof length);
        header->recv(peer, kHeaderSlot | tag);
        header->waitRecv(op_timeout_);
        if (length == 0 && bytes == 0) {
            return;
        }
        if (length == bytes) {
            auto ub = ctx_->createUnboundBuffer(buf, bytes);
            ub->recv(peer, tag);
            ub->waitRecv(op_timeout_);
            return;
        }
        /* Another size: take the message off the connection, then refuse. */
        if (length > 0) {
            std::unique_ptr<char[]> sink(new char[length]);
            auto ub = ctx_->createUnboundBuffer(sink.get(), length);
            ub->recv(peer, tag);
            ub->waitRecv(op_timeout_);
        }
        throw ArgumentError(fmt("bytes = %zu but rank %d sent %llu bytes with tag %llu (the message was "
                                "dropped)", bytes, peer, static_cast<unsigned long long>(length),
                                static_cast<unsigned long long>(tag)));
    }

    /* Waits for the outstanding sends (each up to the operation timeout), stops the thread. */
    void shutdown() noexcept {
        {
            std::lock_guard<std::mutex> lk(mu_);
            stop_ = true;
            cv_.notify_all();
        }
        if (reaper_.joinable()) {
            reaper_.join();
        }
    }

  private:
    uint32_t next_tag() { return tag_++; }

    void check_peer(int peer, uint64_t tag) const {
        if (peer < 0 || peer >= size()) {
            throw ArgumentError(fmt("peer = %d is not a rank of this communicator (0 .. %d)", peer, size() - 1));
        }
        if (peer == rank()) {
            throw ArgumentError(fmt("peer = %d is this rank (the engine moves bytes between processes)", peer));
        }
        if (tag >= kTagLimit) {
            throw ArgumentError(fmt("tag = %llu is not below 2^56", static_cast<unsigned long long>(tag)));
        }
    }

    /* Bytes spanned by the blocks (max of displ + count); overflow is refused. */
    static size_t extent(const char *side, const size_t *counts, const size_t *displs, int n) {
        size_t end = 0;
        for (int q = 0; q < n; q++) {
            if (counts[q] > SIZE_MAX - displs[q]) {
                throw ArgumentError(fmt("%sdispls[%d] + %scounts[%d] overflows", side, q, side, q));
            }
            if (counts[q] > 0) {
                end = std::max(end, displs[q] + counts[q]);
            }
        }
        return end;
    }

    static bool packed(const size_t *counts, const size_t *displs, int n) {
        size_t at = 0;
        for (int q = 0; q < n; q++) {
            if (displs[q] != at) {
                return false;
            }
            at += counts[q];
        }
        return true;
    }

    void fail(const char *call, const char *what) noexcept {
        write_text(error_, sizeof error_, "%s: %s", call, what);
        try {
            std::lock_guard<std::mutex> lk(mu_);
            if (failure_.empty()) {
                failure_ = error_;
            }
            if (waiting_ != nullptr) {
                waiting_->header->abortWaitSend();
                if (waiting_->buf) {
                    waiting_->buf->abortWaitSend();
                }
            }
        } catch (...) {
        }
    }

    /* "" once p was delivered (or its wait aborted), else why not. */
    std::string wait_sent(PendingSend &p) noexcept {
        try {
            if (p.header->waitSend(op_timeout_) && p.buf) {
                p.buf->waitSend(op_timeout_);
            }
            return "";
        } catch (const std::exception &e) {
            try {
                return fmt("send of %zu bytes to rank %d (tag %llu) did not complete: ", p.bytes, p.peer,
                           static_cast<unsigned long long>(p.tag)) + e.what();
            } catch (...) {
            }
        } catch (...) {
        }
        return "a send did not complete";
    }

    void start_reaper() {
        std::lock_guard<std::mutex> lk(mu_);
        if (!reaper_.joinable()) {
            reaper_ = std::thread([this] { reap(); });
        }
    }

    /* Waits, oldest first, for each outstanding send to complete, then frees its copy. */
    void reap() noexcept {
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            cv_.wait(lk, [this] { return stop_ || !pending_.empty(); });
            if (pending_.empty()) {
                return;
            }
            PendingSend *p = pending_.front().get();
            if (failure_.empty()) {
                /* Waited for outside the lock; fail() aborts the wait (the send cannot
                 * complete once the engine failed). */
                waiting_ = p;
                lk.unlock();
                std::string why = wait_sent(*p);
                lk.lock();
                waiting_ = nullptr;
                if (!why.empty() && failure_.empty()) {
                    try {
                        failure_ = why;
                    } catch (...) {
                    }
                }
            }
            pending_.pop_front();
        }
    }

    std::shared_ptr<gloo::Context> ctx_;
    Millis op_timeout_;
    uint32_t tag_ = 0;
    char dummy_ = 0; /* a valid address for empty buffers */
    char error_[1024];

    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::unique_ptr<PendingSend>> pending_;
    PendingSend *waiting_ = nullptr; /* the send the thread waits for */
    std::string failure_;
    bool stop_ = false;
    std::thread reaper_;
};

/* ---- the C ABI -------------------------------------------------------------------------- */

void *net_open(int rank, int nranks, const hg_net_store *store, const char *prefix, const char *local_addr,
               int timeout_ms, char *err, size_t errlen) {
    write_text(err, errlen, "%s", "");
    if (nranks < 1) {
        write_text(err, errlen, "gloo open: nranks = %d must be at least 1", nranks);
        return nullptr;
    }
    if (rank < 0 || rank >= nranks) {
        write_text(err, errlen, "gloo open: rank = %d must be in 0 .. %d", rank, nranks - 1);
        return nullptr;
    }
    if (store == nullptr || store->set == nullptr || store->get == nullptr) {
        write_text(err, errlen, "gloo open: store %s", store == nullptr ? "is NULL" : "lacks its set or get call");
        return nullptr;
    }
    if (prefix == nullptr) {
        write_text(err, errlen, "gloo open: prefix is NULL");
        return nullptr;
    }
    SigpipeBlocked quiet; /* also for Gloo's event loop thread, started here */
    try {
        HgStore st(*store, prefix, timeout_ms);
        gloo::transport::tcp::attr attr;
        attr.hostname = bind_host(local_addr);
        auto dev = gloo::transport::tcp::CreateDevice(attr);
        auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, nranks);
        ctx->setTimeout(as_duration(timeout_ms));
        ctx->connectFullMesh(st, dev);
        return new Engine(std::move(ctx), timeout_ms);
    } catch (const std::exception &e) {
        write_text(err, errlen, "gloo open (rank %d of %d): %s", rank, nranks, e.what());
    } catch (...) {
        write_text(err, errlen, "gloo open (rank %d of %d): unknown exception", rank, nranks);
    }
    return nullptr;
}

Engine *engine(void *ctx) { return static_cast<Engine *>(ctx); }

int net_barrier(void *ctx) {
    if (ctx == nullptr) {
        return -1;
    }
    SigpipeBlocked quiet;
    Engine *e = engine(ctx);
    return e->guarded("barrier", [&] { e->barrier(); });
}

int net_allgather(void *ctx, const void *send, void *recv, size_t bytes) {
    if (ctx == nullptr) {
        return -1;
    }
    SigpipeBlocked quiet;
    Engine *e = engine(ctx);
    return e->guarded("allgather", [&] { e->allgather(send, recv, bytes); });
}

int net_alltoallv(void *ctx, const void *send, const size_t *scounts, const size_t *sdispls, void *recv,
                  const size_t *rcounts, const size_t *rdispls) {
    if (ctx == nullptr) {
        return -1;
    }
    SigpipeBlocked quiet;
    Engine *e = engine(ctx);
    return e->guarded("alltoallv", [&] { e->alltoallv(send, scounts, sdispls, recv, rcounts, rdispls); });
}

int net_broadcast(void *ctx, void *buf, size_t bytes, int root) {
    if (ctx == nullptr) {
        return -1;
    }
    SigpipeBlocked quiet;
    Engine *e = engine(ctx);
    return e->guarded("broadcast", [&] { e->broadcast(buf, bytes, root); });
}

int net_send(void *ctx, const void *buf, size_t bytes, int peer, uint64_t tag) {
    if (ctx == nullptr) {
        return -1;
    }
    SigpipeBlocked quiet;
    Engine *e = engine(ctx);
    return e->guarded("send", [&] { e->send(buf, bytes, peer, tag); });
}

int net_recv(void *ctx, void *buf, size_t bytes, int peer, uint64_t tag) {
    if (ctx == nullptr) {
        return -1;
    }
    SigpipeBlocked quiet;
    Engine *e = engine(ctx);
    return e->guarded("recv", [&] { e->recv(buf, bytes, peer, tag); });
}

const char *net_last_error(void *ctx) {
    return ctx == nullptr ? "no engine context (NULL)" : engine(ctx)->last_error();
}

void net_close(void *ctx) {
    if (ctx == nullptr) {
        return;
    }
    SigpipeBlocked quiet;
    try {
        delete engine(ctx);
    } catch (...) {
    }
}

const hg_net_ops kOps = {
    HG_NET_ABI_VERSION, "gloo", net_open, net_barrier, net_allgather, net_alltoallv, net_broadcast,
    net_send, net_recv, net_last_error, net_close,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const hg_net_ops *hg_net_gloo_ops(void) {
    return &kOps;
}
