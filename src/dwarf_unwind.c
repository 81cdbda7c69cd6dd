#include "dwarf_unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "perf_abi.h"

/* perf's x86-64 register numbers (PERF_REG_X86_*) for DWARF's 0..16:
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
static const int dwarf_to_perf_x86_64[17] = {
    0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8,
};
enum { PERF_REG_SP = 7, PERF_REG_IP = 8 };

/* What the callbacks of one unwind need; a session keeps one and points
 * it at each sample in turn. */
typedef struct unwind_state {
    pv_symbolizer *sym;
    const pv_sample *sample;
    uint64_t key;
    uint64_t sp;
    const uint8_t *stack;
    uint64_t stack_size;
    Dwfl *dwfl;
    size_t nr_frames, max_frames;
    pv_unwound_frame *frames;
    size_t nr, max;
    char *names;
    size_t names_len, names_size;
} unwind_state;

/* The sampled value of perf register r, if recorded. */
static bool user_reg(const pv_sample *s, int r, uint64_t *out)
{
    const pv_sample_regs *regs = &s->regs_user;
    if (regs->abi == 0 || !((regs->mask >> r) & 1))
        return false;
    uint64_t index = (uint64_t)__builtin_popcountll(regs->mask & ((1ull << r) - 1));
    if (index >= regs->nr)
        return false;
    *out = pv_load_u64(regs->values + index * 8, s->swap);
    return true;
}

/* Reports the module mapped at addr (once), at its load bias. */
static void report_module(unwind_state *u, uint64_t addr)
{
    const char *path;
    uint64_t start, end, pgoff;
    if (!pv_symbolizer_user_image(u->sym, (int32_t)u->sample->pid, u->key, addr, &path, &start,
                                  &end, &pgoff))
        return;
    Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, addr);
    if (mod) {
        Dwarf_Addr low;
        dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
        if (low == start - pgoff)
            return;
    }
    dwfl_report_elf(u->dwfl, path, path, -1, start - pgoff, false);
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    if (*thread_argp != NULL)
        return 0;       /* one thread: the sample's */
    *thread_argp = arg;
    return dwfl_pid(dwfl);
}

/* Any thread of the process: the sample's, whose registers are set. */
static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
    (void)dwfl;
    (void)tid;
    *thread_argp = arg;
    return true;
}

/* Outside the copied stack: the bytes of the file mapped there. */
static bool read_mapped_file(unwind_state *u, uint64_t addr, Dwarf_Word *result)
{
    const char *path;
    uint64_t start, end, pgoff;
    if (!pv_symbolizer_user_image(u->sym, (int32_t)u->sample->pid, u->key, addr, &path, &start,
                                  &end, &pgoff) ||
        addr > end - 8)
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    uint64_t word;
    bool ok = pread(fd, &word, 8, (off_t)(addr - start + pgoff)) == 8;
    close(fd);
    if (ok)
        *result = word;
    return ok;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    unwind_state *u = arg;
    if (addr + 8 < addr)
        return false;
    if (addr >= u->sp && addr - u->sp <= u->stack_size && u->stack_size - (addr - u->sp) >= 8) {
        *result = pv_load_u64(u->stack + (addr - u->sp), u->sample->swap);
        return true;
    }
    return read_mapped_file(u, addr, result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    unwind_state *u = arg;
    Dwarf_Word regs[17];
    for (int i = 0; i < 17; i++) {
        uint64_t v = 0;
        user_reg(u->sample, dwarf_to_perf_x86_64[i], &v);
        regs[i] = v;
    }
    return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

static int32_t keep_name(unwind_state *u, const char *name)
{
    size_t n = strlen(name);
    if (n + 1 > u->names_size - u->names_len)
        return -1;
    memcpy(u->names + u->names_len, name, n + 1);
    int32_t at = (int32_t)u->names_len;
    u->names_len += n + 1;
    return at;
}

/* addr2line's name of a function DIE: its linkage name demangled (C++),
 * else its DW_AT_name; -1 when it has none or the buffer is full. */
static int32_t die_name(unwind_state *u, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    char *demangled = linkage ? cplus_demangle(linkage, DMGL_NO_OPTS) : NULL;
    const char *name = demangled ? demangled : linkage ? linkage : dwarf_diename(die);
    int32_t at = name ? keep_name(u, name) : -1;
    free(demangled);
    return at;
}

static bool add_row(unwind_state *u, uint64_t pc, int32_t name)
{
    if (u->nr >= u->max)
        return false;
    u->frames[u->nr].pc = pc;
    u->frames[u->nr++].name = name;
    return true;
}

static bool is_function(int tag)
{
    return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
           tag == DW_TAG_entry_point;
}

/* The rows of pc, as addr2line -i lists them: the innermost function
 * holding pc, then, while it was inlined, the function it was inlined
 * into; one unnamed row without debug info. */
static void add_frame(unwind_state *u, uint64_t pc)
{
    size_t first = u->nr;
    Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, pc);
    Dwarf_Addr bias;
    Dwarf_Die *cu = mod ? dwfl_module_addrdie(mod, pc, &bias) : NULL;
    Dwarf_Die *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    Dwarf_Die innermost;
    bool found = false;
    for (int i = 0; i < n && !found; i++)
        if (is_function(dwarf_tag(&scopes[i]))) {
            innermost = scopes[i];
            found = true;
        }
    free(scopes);
    if (found) {
        int32_t name = die_name(u, &innermost);
        if (name >= 0 && add_row(u, pc, name) && dwarf_tag(&innermost) == DW_TAG_inlined_subroutine) {
            Dwarf_Die *chain = NULL;
            int m = dwarf_getscopes_die(&innermost, &chain);
            for (int i = 1; i < m; i++) {
                int tag = dwarf_tag(&chain[i]);
                if (!is_function(tag))
                    continue;
                name = die_name(u, &chain[i]);
                if (name < 0 || !add_row(u, pc, name) || tag != DW_TAG_inlined_subroutine)
                    break;
            }
            free(chain);
        }
    }
    if (u->nr == first)
        add_row(u, pc, -1);
}

static int frame_callback(Dwfl_Frame *frame, void *arg)
{
    unwind_state *u = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(frame, &pc, NULL))
        return DWARF_CB_ABORT;
    report_module(u, pc);   /* before asking whether it is an activation */
    if (!dwfl_frame_pc(frame, &pc, &activation))
        return DWARF_CB_ABORT;
    if (!activation)
        pc--;
    add_frame(u, pc);
    return ++u->nr_frames < u->max_frames && u->nr < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
    .section_address = dwfl_offline_section_address,
};

#define SESSIONS 8

typedef struct session {
    Dwfl *dwfl;
    int32_t pid;
    uint64_t last_used;
    unwind_state *state;        /* the callbacks' argument, fixed at attach */
} session;

struct pv_unwinder {
    session sessions[SESSIONS];
    uint64_t clock;
};

pv_unwinder *pv_unwinder_new(void)
{
    return calloc(1, sizeof(pv_unwinder));
}

static void end_session(session *e)
{
    if (e->dwfl)
        dwfl_end(e->dwfl);
    free(e->state);
    memset(e, 0, sizeof *e);
}

void pv_unwinder_free(pv_unwinder *u)
{
    if (!u)
        return;
    for (int i = 0; i < SESSIONS; i++)
        end_session(&u->sessions[i]);
    free(u);
}

/* The module reported at addr no longer matches the process's map there
 * (an exec, a dlopen over an old range): start the session afresh. */
static bool stale(unwind_state *st, uint64_t addr)
{
    const char *path;
    uint64_t start, end, pgoff;
    Dwfl_Module *mod = dwfl_addrmodule(st->dwfl, addr);
    if (!mod || !pv_symbolizer_user_image(st->sym, (int32_t)st->sample->pid, st->key, addr,
                                          &path, &start, &end, &pgoff))
        return false;
    Dwarf_Addr low;
    const char *name = dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
    return low != start - pgoff || !name || strcmp(name, path) != 0;
}

static session *session_for(pv_unwinder *u, pv_symbolizer *sym, const pv_sample *s, uint64_t key,
                            uint64_t ip)
{
    session *e = NULL, *victim = &u->sessions[0];
    for (int i = 0; i < SESSIONS; i++) {
        session *c = &u->sessions[i];
        if (c->dwfl && c->pid == (int32_t)s->pid)
            e = c;
        if (!c->dwfl || (victim->dwfl && c->last_used < victim->last_used))
            victim = c;
    }
    if (e) {
        e->state->sym = sym;
        e->state->sample = s;
        e->state->key = key;
        if (!stale(e->state, ip))
            return e;
        end_session(e);
        victim = e;
    }
    end_session(victim);
    victim->state = calloc(1, sizeof *victim->state);
    victim->dwfl = victim->state ? dwfl_begin(&offline_callbacks) : NULL;
    if (!victim->dwfl) {
        end_session(victim);
        return NULL;
    }
    victim->pid = (int32_t)s->pid;
    unwind_state *st = victim->state;
    st->sym = sym;
    st->sample = s;
    st->key = key;
    st->dwfl = victim->dwfl;
    report_module(st, ip);
    if (!dwfl_attach_state(victim->dwfl, NULL, (pid_t)s->pid, &thread_callbacks, st)) {
        end_session(victim);
        return NULL;
    }
    return victim;
}

size_t pv_dwarf_unwind(pv_unwinder *u, pv_symbolizer *sym, const pv_sample *s, uint64_t key,
                       size_t max_frames, pv_unwound_frame *frames, size_t max, char *names,
                       size_t names_size)
{
    if (!u || !(s->sample_type & PV_SAMPLE_REGS_USER) || !(s->sample_type & PV_SAMPLE_STACK_USER) ||
        !(s->sample_type & PV_SAMPLE_TID) || s->regs_user.abi != 2 /* 64-bit */ ||
        max == 0 || max_frames == 0)
        return 0;
    uint64_t ip, sp;
    if (!user_reg(s, PERF_REG_SP, &sp) || !user_reg(s, PERF_REG_IP, &ip))
        return 0;
    session *e = session_for(u, sym, s, key, ip);
    if (!e)
        return 0;
    e->last_used = ++u->clock;
    unwind_state *st = e->state;
    st->sp = sp;
    st->stack = s->stack_user;
    st->stack_size = s->stack_user_size;
    if (s->stack_user_dyn_size && s->stack_user_dyn_size < st->stack_size)
        st->stack_size = s->stack_user_dyn_size;
    st->nr_frames = 0;
    st->max_frames = max_frames;
    st->frames = frames;
    st->nr = 0;
    st->max = max;
    st->names = names;
    st->names_len = 0;
    st->names_size = names_size;
    report_module(st, ip);
    dwfl_getthread_frames(e->dwfl, (pid_t)s->tid, frame_callback, st);
    return st->nr;
}
