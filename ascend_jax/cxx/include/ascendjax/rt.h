// ascend_jax C++ front end: the runtime shared by kernel_operator.h and the host stubs (acl/acl.h).
// Written for ascend_jax (no vendor source). A kernel compiled against these headers runs on the
// host: every Ascend C call appends a record to the trace of the current block; a kernel launch
// (`k<<<blocks, ubuf, stream>>>(args)`, rewritten by ascend_jax/cxx/build.py into
// `ascendjax_launch(...)`) runs the kernel body once per block, hands the trace and the GM bytes
// to the Python model over two pipes and copies the model's GM results back.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

extern "C" char __executable_start, _end;  // the program's image (GNU ld): code, constants, statics

namespace ascendjax {

// -- a tiny JSON writer ---------------------------------------------------------------------
struct Json {
    std::string s;
    bool first = true;
    void sep() {
        if (!first) s += ',';
        first = false;
    }
    void key(const char* k) {
        sep();
        s += '"';
        s += k;
        s += "\":";
        first = true;
    }
    void str(const char* v) {
        sep();
        s += '"';
        for (const char* p = v; *p; ++p) {
            unsigned char c = (unsigned char)*p;
            if (c == '"' || c == '\\') {
                s += '\\';
                s += (char)c;
            } else if (c < 0x20) {
                char b[8];
                snprintf(b, sizeof b, "\\u%04x", c);
                s += b;
            } else {
                s += (char)c;
            }
        }
        s += '"';
    }
    void raw(const char* v) {
        sep();
        s += v;
    }
    void i64(long long v) {
        char b[32];
        snprintf(b, sizeof b, "%lld", v);
        raw(b);
    }
    void u64(unsigned long long v) {
        char b[32];
        snprintf(b, sizeof b, "%llu", v);
        raw(b);
    }
    void f64(double v) {  // exact: hex float
        char b[64];
        snprintf(b, sizeof b, "\"%a\"", v);
        raw(b);
    }
    void open(char c) {
        sep();
        s += c;
        first = true;
    }
    void close(char c) {
        s += c;
        first = false;
    }
};

[[noreturn]] inline void die(int code, const char* msg) {
    fprintf(stderr, "ascend-jax: %s\n", msg);
    fflush(stderr);
    _exit(code);
}

// -- GM buffers (aclrtMalloc) ----------------------------------------------------------------
struct GmBuf {
    uint8_t* p;
    size_t n;
    bool live;
    bool used = false;  // written, read or given to a kernel (else: msSanitizer's "unused memory")
    const char* file = "?";  // the aclrtMalloc call site
    int line = 0;
    const char* free_file = "?";  // the aclrtFree call site
    int free_line = 0;
    bool table = false;  // a constant table of the program (a __gm__ array at file scope), not aclrtMalloc'ed
};

// GM pages: aclrtMalloc hands out whole pages, so that the kernel's GM can be write-protected
// while it runs (a store through a raw __gm__ pointer faults and is refused at its line)
inline size_t gm_pages(size_t n) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n ? n : 1) + pg - 1 - ((n ? n : 1) + pg - 1) % pg;
}

struct Runtime;
inline Runtime& rt();

// One block of a launch as a coroutine (ucontext): `SyncAll` hands control back to the launch's
// scheduler, which runs every other block up to its own SyncAll before this one goes on. The
// blocks run one at a time, so the runtime's per-block state (its index, UB bump pointer, current
// TPipe) is saved and restored at each switch.
struct Fiber {
    ucontext_t ctx;
    void* stack = nullptr;
    bool started = false;
    bool done = false;
    uint32_t ub_next = 0;
    void* pipe = nullptr;
    std::function<void()> body;
};
constexpr size_t kFiberStack = 8u << 20;  // as a thread's default stack

// host memory a ReadFile filled (its path) or an aclrtMemcpy device-to-host filled (its GM buffer):
// `--cases DIR` reads each case's file for the GM buffer it feeds; outputs keep WriteFile's name
struct HostRegion {
    const uint8_t* p;
    size_t n;
    std::string path;  // ReadFile's path (empty for a device-to-host copy)
    int gm;            // the GM buffer (device-to-host copies)
};

struct Runtime {
    std::vector<GmBuf> gm;
    std::vector<HostRegion> files, copies;
    std::vector<std::vector<uint8_t>> snapshot;  // GM bytes at the launch
    std::string trace;                           // JSON lines of the current launch
    std::string dir;                             // exchange folder (env ASCENDJAX_DIR)
    int fd_req = -1, fd_rep = -1;
    int launches = 0;
    int launch = -1;
    long block = -1, block_num = 0;
    bool in_kernel = false;
    int next_id = 1;
    uint32_t ub_next = 0;  // the block's UB bump pointer (the model's rule: 32-byte aligned, from 0)
    int events = 0;
    long generation = 0;        // a new trace: each launch, each case rerun (VALUE names it)
    size_t trace_sent = 0;      // bytes of `trace` already in the exchange's trace file (VALUE)
    bool exchange_fresh = false;  // this generation's meta and GM bytes are in the exchange folder
    std::string launch_name;
    int launch_line = 0;
    bool init = false;
    long max_events = 0;   // the call budget of one launch's trace (env ASCENDJAX_MAX_CALLS; 0: none)
    ucontext_t sched_ctx;     // the launch's scheduler (ascendjax_launch)
    Fiber* fiber = nullptr;   // the running block
    std::vector<void*> spare_stacks;
    const char* last_file = "";  // the last recorded call of the running block
    int last_line = 0;
    bool gm_locked = false;

    void setup() {
        if (init) return;
        init = true;
        const char* d = getenv("ASCENDJAX_DIR");
        const char* a = getenv("ASCENDJAX_FD_REQ");
        const char* b = getenv("ASCENDJAX_FD_REP");
        if (!d || !a || !b)
            die(2, "this program was built by ascend-jax and runs only under `ascend-jax run FILE.asc`");
        dir = d;
        fd_req = atoi(a);
        fd_rep = atoi(b);
        if (const char* m = getenv("ASCENDJAX_MAX_CALLS")) max_events = atol(m);
        atexit([] { rt().at_exit(); });
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = [](int, siginfo_t* si, void* uc) { rt().gm_fault(si->si_addr, uc); };
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sa, nullptr);
    }

    // -- GM written behind the model's back -------------------------------------------------------
    // SPEC (issue 45 item 5): a memory access the model cannot see is modelled or refused at its
    // line, never dropped. While a kernel runs its GM buffers are read-only: a store through a raw
    // __gm__ pointer (`yp[0] = v`, GetPhyAddr()[i] = v) faults here and the run stops, naming the
    // last recorded call before the store. (A raw read sees the GM bytes at the launch: CHOICE
    // "raw GM reads" in docs/MODEL.md.)
    void lock_gm(bool on) {
        if (on == gm_locked) return;
        gm_locked = on;
        for (auto& g : gm)
            if (g.live && !g.table) mprotect(g.p, gm_pages(g.n), on ? PROT_READ : PROT_READ | PROT_WRITE);
    }
    void gm_fault(void* addr, void* uc) {
        const uint8_t* q = (const uint8_t*)addr;
        for (size_t i = 0; gm_locked && i < gm.size(); ++i) {
            if (!gm[i].live || gm[i].table || q < gm[i].p || q >= gm[i].p + gm_pages(gm[i].n)) continue;
            std::string at = store_line(uc);
            if (at.empty())
                at = (last_line ? short_site(last_file, last_line) : launch_name) + " (after this line's call)";
            not_modelled(at + ": a store through a raw __gm__ pointer into GM buffer " + std::to_string(i) + " (byte " +
                         std::to_string(q - gm[i].p) + ", aclrtMalloc at " + short_site(gm[i].file, gm[i].line) +
                         ") in block " + std::to_string(block) + " of " + launch_name +
                         ": the model does not see raw GM stores; write GM through a GlobalTensor "
                         "(SetValue(i, v), operator()(i) = v, or DataCopy)");
        }
        if (in_kernel && (uintptr_t)addr < (1u << 20)) {  // below any host mapping: a UB address as a pointer
            std::string at = store_line(uc);
            if (at.empty()) at = (last_line ? short_site(last_file, last_line) : launch_name) + " (after this line's call)";
            char a[32];
            snprintf(a, sizeof a, "0x%lx", (unsigned long)(uintptr_t)addr);
            not_modelled(at + ": an access to address " + a + " through a raw pointer in block " + std::to_string(block) +
                         " of " + launch_name + " (a UB address, e.g. from LocalTensor::GetPhyAddr(), or a null "
                         "pointer): the model has no raw UB access; read and write UB elements with GetValue / "
                         "SetValue or t(i)");
        }
        signal(SIGSEGV, SIG_DFL);  // not the kernel's memory: the crash it is
    }
    static std::string short_site(const char* file, int line) {
        const char* b = strrchr(file, '/');
        return std::string(b ? b + 1 : file) + ":" + std::to_string(line);
    }
    // the source line of the faulting store: the program's line table (built with -g1) via addr2line
    static std::string store_line(void* uc) {
        uintptr_t pc = 0;
#if defined(__x86_64__)
        pc = (uintptr_t)((ucontext_t*)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
        pc = (uintptr_t)((ucontext_t*)uc)->uc_mcontext.pc;
#endif
        Dl_info info;
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (!pc || n <= 0 || !dladdr((void*)pc, &info)) return "";
        exe[n] = 0;
        char cmd[4300];
        snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%lx 2>/dev/null", exe,
                 (unsigned long)(pc - (uintptr_t)info.dli_fbase));
        FILE* f = popen(cmd, "r");
        if (!f) return "";
        char out[4096] = {0};
        bool ok = fgets(out, sizeof out, f) != nullptr;
        pclose(f);
        std::string r = ok ? out : "";
        size_t cut = r.find_first_of(" \n");
        if (cut != std::string::npos) r.resize(cut);
        size_t colon = r.rfind(':');
        if (colon == std::string::npos || r.compare(0, 2, "??") == 0 || r.compare(colon, 2, ":?") == 0 ||
            r.compare(colon, 3, ":0") == 0)
            return "";
        size_t slash = r.rfind('/', colon);
        return slash == std::string::npos ? r : r.substr(slash + 1);
    }
    // a constant table the kernel gives SetGlobalBuffer (a __gm__ array of the program, not
    // aclrtMalloc'ed): a read-only GM buffer of the launch (its bytes never copied back)
    int add_table(const void* p, size_t n) {
        if ((const char*)p < &__executable_start || (const char*)p + n > &_end) return -1;  // not the program's image
        GmBuf g{(uint8_t*)p, n, true};
        g.table = true;
        g.used = true;
        g.file = last_file;
        g.line = last_line;
        gm.push_back(g);
        snapshot.emplace_back(g.p, g.p + n);
        if (exchange_fresh) {  // a value was read this generation: the model restarts with the table
            ++generation;
            exchange_fresh = false;
        }
        return (int)gm.size() - 1;
    }

    // ASSERT / ascendc_assert in a kernel (or host code): a false condition stops the run (exit 1)
    void check(bool ok, const char* expr, const char* file, int line) {
        if (ok) return;
        setup();
        std::string where = in_kernel ? " in block " + std::to_string(block) + " of " + launch_name : "";
        host_finding(site(file, line) + ": error: assertion failed" + where + ": " + expr);
        _exit(1);
    }

    // -- host-side memory findings (the msSanitizer memcheck classes of aclrtMalloc / aclrtFree) --
    // aclrtMemcpy: host -> device from a ReadFile buffer, device -> host (for WriteFile)
    void memcpy_note(void* dst, const void* src, size_t n) {
        if (!init) return;
        size_t doff = 0, soff = 0;
        int d = find_gm(dst, &doff), s = find_gm(src, &soff);
        const uint8_t* q = (const uint8_t*)src;
        if (d >= 0 && s < 0 && doff == 0) {
            for (auto it = files.rbegin(); it != files.rend(); ++it) {
                if (q >= it->p && q + n <= it->p + it->n) {
                    send("INFILE " + std::to_string(d) + " " + std::to_string(q - it->p) + " " + std::to_string(n) +
                         " " + it->path);
                    break;
                }
            }
        } else if (s >= 0 && d < 0 && soff == 0) {
            copies.push_back({(const uint8_t*)dst, n, "", s});
        }
    }
    void write_note(const std::string& path, const void* buf, size_t n) {
        if (!init) return;
        const uint8_t* q = (const uint8_t*)buf;
        for (auto it = copies.rbegin(); it != copies.rend(); ++it) {
            if (q == it->p && n <= it->n) {
                send("OUTFILE " + std::to_string(it->gm) + " " + std::to_string(n) + " " + path);
                return;
            }
        }
    }
    void host_finding(const std::string& text) {
        std::string m = "HOST " + text;
        for (auto& c : m)
            if (c == '\n') c = ' ';
        send(m);
    }
    std::string site(const char* file, int line) { return std::string(file) + ":" + std::to_string(line); }
    void unused_check(const GmBuf& g, size_t id) {
        if (!g.used)
            host_finding("memcheck: warning: Unused memory of " + std::to_string(g.n) + " byte(s): GM buffer " +
                         std::to_string(id) + " (aclrtMalloc at " + site(g.file, g.line) +
                         ") was never written, read or given to a kernel");
    }
    void at_exit() {
        size_t bytes = 0, n = 0;
        std::string where;
        for (size_t i = 0; i < gm.size(); ++i) {
            if (!gm[i].live || gm[i].table) continue;
            unused_check(gm[i], i);
            bytes += gm[i].n;
            ++n;
            where += (where.empty() ? "" : ", ") + site(gm[i].file, gm[i].line);
        }
        if (n)
            host_finding("memcheck: error: LeakCheck: detected memory leaks: " + std::to_string(bytes) +
                         " byte(s) leaked in " + std::to_string(n) + " allocation(s) never given to aclrtFree (aclrtMalloc at " +
                         where + ")");
    }
    // Something the sample's host code does that the model does not cover: the run stops with
    // NotModelledError (exit 2) and this text.
    [[noreturn]] void not_modelled(const std::string& text) {
        setup();
        std::string m = "NOTMODELLED " + text;
        for (auto& c : m)
            if (c == '\n') c = ' ';
        send(m);
        _exit(97);
    }

    int find_gm(const void* p, size_t* off) {
        const uint8_t* q = (const uint8_t*)p;
        for (size_t i = 0; i < gm.size(); ++i) {
            if (gm[i].live && q >= gm[i].p && q <= gm[i].p + gm[i].n) {
                gm[i].used = true;
                *off = (size_t)(q - gm[i].p);
                return (int)i;
            }
        }
        return -1;
    }

    void send(const std::string& msg) {
        std::string m = msg + "\n";
        const char* p = m.c_str();
        size_t left = m.size();
        while (left) {
            ssize_t w = write(fd_req, p, left);
            if (w <= 0) die(3, "lost the connection to ascend-jax (request)");
            p += w;
            left -= (size_t)w;
        }
    }
    std::string receive() {
        std::string r;
        char c;
        for (;;) {
            ssize_t n = read(fd_rep, &c, 1);
            if (n <= 0) die(3, "lost the connection to ascend-jax (reply)");
            if (c == '\n') break;
            r += c;
        }
        if (r.rfind("ERR", 0) == 0) _exit(97);  // Python reports the error itself
        return r;
    }

    std::string path(const char* name) {
        char b[64];
        snprintf(b, sizeof b, "/launch_%d_", launch);
        return dir + b + name;
    }
    void write_file(const std::string& p, const void* data, size_t n) {
        FILE* f = fopen(p.c_str(), "wb");
        if (!f) die(3, ("cannot write " + p).c_str());
        if (n && fwrite(data, 1, n, f) != n) die(3, ("cannot write " + p).c_str());
        fclose(f);
    }
    void write_exchange() {
        write_file(path("trace.jsonl"), trace.data(), trace.size());
        Json j;
        j.open('{');
        j.key("name");
        j.str(launch_name.c_str());
        j.key("line");
        j.i64(launch_line);
        j.key("blocks");
        j.i64(block_num);
        j.key("gm");
        j.open('[');
        for (size_t i = 0; i < gm.size(); ++i) {
            j.open('{');
            j.key("bytes");
            j.u64(gm[i].n);
            j.key("live");
            j.raw(gm[i].live ? "true" : "false");
            if (gm[i].table) {
                j.key("table");
                j.raw("true");
            }
            j.close('}');
        }
        j.close(']');
        j.close('}');
        write_file(path("meta.json"), j.s.data(), j.s.size());
        for (size_t i = 0; i < gm.size(); ++i) {
            char b[32];
            snprintf(b, sizeof b, "gm%zu.bin", i);
            write_file(path(b), snapshot[i].data(), snapshot[i].size());
        }
    }

    // one record: {"b":block,"op":...,...,"file":..,"line":..}
    void record(Json& j, const char* file, int line) {
        if (!outside.empty()) outside_kernel(file, line);
        j.key("file");
        j.str(file);
        j.key("line");
        j.i64(line);
        j.close('}');
        trace += j.s;
        trace += '\n';
        if (line) last_file = file, last_line = line;
        if (++events > max_events && max_events > 0) too_long();
    }

    // An Ascend C call in host code (outside every kernel launch): the run stops (exit 2) naming
    // the API and the user's line.
    std::string outside;
    [[noreturn]] void outside_kernel(const char* file, int line) {
        setup();
        std::string m = "HOSTERROR " + site(file, line) + ": AscendC::" + outside +
                        " called outside a kernel launch (in host code); an Ascend C API runs inside a "
                        "__global__ kernel launched with kernel<<<blocks, ubuf, stream>>>(...)";
        for (auto& c : m)
            if (c == '\n') c = ' ';
        send(m);
        _exit(97);
    }
    // A host-side failure ascend-jax reports with the run's result (WRITEFAIL, READFAIL).
    void host_note(const char* kind, const std::string& text) {
        setup();
        std::string m = std::string(kind) + " " + text;
        for (auto& c : m)
            if (c == '\n') c = ' ';
        send(m);
    }

    // Past the call budget the recorder stops (before the trace grows without bound): it names
    // the most repeated call site of the trace so far and its count, and the Python side stops
    // the run with that message (a loop of 10^6 calls would not compile into one program).
    [[noreturn]] void too_long() {
        std::map<std::string, long> count;
        std::map<std::string, std::string> api;
        size_t pos = 0;
        while (pos < trace.size()) {
            size_t end = trace.find('\n', pos);
            if (end == std::string::npos) end = trace.size();
            size_t f = trace.rfind(",\"file\":\"", end);
            size_t l = f == std::string::npos ? f : trace.find("\",\"line\":", f + 9);
            if (f != std::string::npos && f >= pos && l != std::string::npos && l < end) {
                std::string site = trace.substr(f + 9, l - f - 9) + ":" + trace.substr(l + 9, end - l - 10);
                if (++count[site] == 1) {
                    size_t a = trace.find("\"api\":\"", pos);
                    size_t o = trace.find("\"op\":\"", pos);
                    std::string name;
                    if (a != std::string::npos && a < end) name = trace.substr(a + 7, trace.find('"', a + 7) - a - 7);
                    else if (o != std::string::npos && o < end) name = trace.substr(o + 6, trace.find('"', o + 6) - o - 6);
                    api[site] = name;
                }
            }
            pos = end + 1;
        }
        std::string best;
        long n = 0;
        for (auto& kv : count)
            if (kv.second > n) best = kv.first, n = kv.second;
        char b[128];
        snprintf(b, sizeof b, "TOOLONG %d %ld %ld %ld\t", launch, max_events, (long)block, n);
        std::string msg = b + launch_name + "\t" + std::to_string(launch_line) + "\t" + best + "\t" + api[best];
        for (auto& c : msg)
            if (c == '\n') c = ' ';
        send(msg);
        _exit(97);
    }
    Json start(const char* op) {
        if (!in_kernel && outside.empty()) outside = op;  // reported by record(), which has the line
        Json j;
        j.open('{');
        j.key("b");
        j.i64(block);
        j.key("op");
        j.str(op);
        return j;
    }

    // A value the kernel reads back (GetValue, GetReduceRepeatSumSpr, ...): the model runs the
    // trace so far and answers with the value's bytes.
    // Only the trace's new records are appended after the first read of a generation: the model
    // continues from the previous read (k reads cost one replay, not k).
    void value(void* out, size_t n) {
        if (!exchange_fresh) {
            write_exchange();
            exchange_fresh = true;
        } else {
            FILE* f = fopen(path("trace.jsonl").c_str(), "ab");
            size_t add = trace.size() - trace_sent;
            if (!f || (add && fwrite(trace.data() + trace_sent, 1, add, f) != add)) die(3, "cannot write the trace");
            fclose(f);
        }
        trace_sent = trace.size();
        char b[96];
        snprintf(b, sizeof b, "VALUE %d %d %ld", launch, events - 1, generation);
        send(b);
        std::string r = receive();  // "V <hex>"
        if (r.size() < 2 || r[0] != 'V') die(3, "bad reply from ascend-jax (value)");
        std::string h = r.substr(2);
        if (h.size() != 2 * n) die(3, "bad value size from ascend-jax");
        uint8_t* o = (uint8_t*)out;
        for (size_t i = 0; i < n; ++i) o[i] = (uint8_t)strtoul(h.substr(2 * i, 2).c_str(), nullptr, 16);
    }

    void begin_launch(const char* name, int line, long blocks) {
        setup();
        if (in_kernel) die(2, "a kernel launch inside a kernel");
        launch = launches++;
        launch_name = name;
        launch_line = line;
        block_num = blocks;
        trace.clear();
        events = 0;
        ++generation;
        exchange_fresh = false;
        snapshot.clear();
        for (auto& g : gm) snapshot.emplace_back(g.p, g.p + (g.live ? g.n : 0));
        lock_gm(true);
    }
    // -- blocks as coroutines ----------------------------------------------------------------
    static void fiber_entry() {
        Fiber* f = rt().fiber;
        f->body();
        f->done = true;  // returns to the scheduler (uc_link)
    }
    // Run block `f` until it ends or reaches a SyncAll.
    void resume(Fiber& f) {
        if (!f.started) {
            f.started = true;
            if (!spare_stacks.empty()) {
                f.stack = spare_stacks.back();
                spare_stacks.pop_back();
            } else {
                f.stack = mmap(nullptr, kFiberStack, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
                if (f.stack == MAP_FAILED) die(3, "cannot allocate a block's stack");
                mprotect(f.stack, 4096, PROT_NONE);  // a guard page below the stack
            }
            getcontext(&f.ctx);
            f.ctx.uc_stack.ss_sp = f.stack;
            f.ctx.uc_stack.ss_size = kFiberStack;
            f.ctx.uc_link = &sched_ctx;
            makecontext(&f.ctx, (void (*)())fiber_entry, 0);
        }
        fiber = &f;
        swapcontext(&sched_ctx, &f.ctx);
        fiber = nullptr;
        if (f.done && f.stack) {
            spare_stacks.push_back(f.stack);
            f.stack = nullptr;
        }
    }
    // SyncAll: back to the scheduler (a no-op outside a launch's coroutine)
    void phase_end() {
        if (fiber) swapcontext(&fiber->ctx, &sched_ctx);
    }

    void begin_block(long b) {
        block = b;
        in_kernel = true;
        ub_next = 0;
        last_file = "";
        last_line = 0;
        Json j = start("block");
        record(j, "", 0);
    }
    void end_block() { in_kernel = false; }
    // Returns the number of other cases to rerun the kernel on ("OK <n>": --cases with a value
    // read back into C++, whose trace holds for its own inputs only; see begin_case).
    long end_launch() {
        lock_gm(false);
        write_exchange();
        char b[32];
        snprintf(b, sizeof b, "LAUNCH %d", launch);
        send(b);
        std::string r = receive();
        if (r.compare(0, 2, "OK") != 0) die(3, "bad reply from ascend-jax (launch)");
        long cases = r.size() > 3 ? strtol(r.c_str() + 3, nullptr, 10) : 0;
        for (size_t i = 0; i < gm.size(); ++i) {
            if (!gm[i].live || gm[i].table) continue;
            char n[32];
            snprintf(n, sizeof n, "gm%zu.out", i);
            FILE* f = fopen(path(n).c_str(), "rb");
            if (!f) die(3, "missing GM result from ascend-jax");
            if (fread(gm[i].p, 1, gm[i].n, f) != gm[i].n) die(3, "short GM result from ascend-jax");
            fclose(f);
        }
        return cases;
    }
    // Case c of a per-case launch: the GM bytes the trace starts from are case c's inputs
    // (written by ascend-jax); the kernel then runs again and records a fresh trace.
    void begin_case(long c) {
        for (size_t i = 0; i < gm.size(); ++i) {
            if (!gm[i].live || !gm[i].n) continue;
            char n[64];
            snprintf(n, sizeof n, "case%ld_gm%zu.bin", c, i);
            FILE* f = fopen(path(n).c_str(), "rb");
            if (!f) continue;  // a buffer the kernel does not take: its bytes at the launch
            if (fread(snapshot[i].data(), 1, snapshot[i].size(), f) != snapshot[i].size())
                die(3, "short case input from ascend-jax");
            fclose(f);
        }
        trace.clear();
        events = 0;
        ++generation;
        exchange_fresh = false;
        lock_gm(true);
    }
    void end_case(long c) {
        lock_gm(false);
        write_exchange();
        char b[64];
        snprintf(b, sizeof b, "CASE %d %ld", launch, c);
        send(b);
        if (receive() != "OK") die(3, "bad reply from ascend-jax (case)");
    }
};

inline Runtime& rt() {
    static Runtime* r = new Runtime;  // never destroyed: the atexit check runs after statics die
    return *r;
}

}  // namespace ascendjax
