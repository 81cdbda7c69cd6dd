#include "unwind/dwarf_unwind.h"

#include "unwind/elf_snapshot.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/byte_reader.h"
#include "unwind/cfi_row.h"
#include "unwind/preserved_regs.h"
#include "unwind/debug_cache.h"
#include "unwind/unwind_regs.h"
#include "base/pv_alloc.h"

/* Dwfl sessions kept for recently sampled processes, and files kept open
 * for reads outside the stack copy.  A session holds an open ELF per
 * mapped file it met, so the bound also bounds open descriptors. */
#define CACHED_PROCESSES 16
#define CACHED_FILES 8
#define FAILED_PATHS 64

/* A Dwfl for one process: its modules are the ELF files reported so far,
 * each at the place its map put it. */
typedef struct process_session {
    int32_t pid;
    bool used;
    Dwfl *dwfl;
    const pv_unwind_abi *abi;      /* the ABI the session was attached with */
    uint64_t last_use;
} process_session;

typedef struct open_file {
    char *path;
    int fd;
    uint64_t last_use;
} open_file;

struct pv_unwinder {
    pv_arch_family family;
    char arch_name[32];
    uint64_t clock;
    process_session sessions[CACHED_PROCESSES];
    open_file files[CACHED_FILES];
    /* paths that are not readable ELF files, not retried */
    char *failed[FAILED_PATHS];
    size_t nr_failed, next_failed;
    Dwfl_Callbacks callbacks;
    char *debuginfo_path;
    pv_debug_cache *debug_cache;    /* the caller's, or NULL */

    /* The sample being unwound; read by the libdwfl callbacks. */
    const pv_sample *sample;
    const pv_unwind_abi *abi;
    pv_unwind_find_map_fn find_map;
    void *ctx;
    uint64_t pc, sp;
    const uint8_t *stack;
    uint64_t stack_len;
    bool regs_present[32];
    uint64_t dwarf_regs[32];
    process_session *session;
    process_session *last_session;  /* of the sample last unwound */
    uint64_t *ips;
    size_t max_frames;
    pv_unwind_result *res;
    bool stopped;               /* the frame callback ended the walk and said why */
    bool conflict;              /* a module of the session no longer matches the maps */
    bool read_failed;           /* a memory read of the current step failed */
    /* perf's frame-pointer guess (pv_unwind_map.perf_lowest_start) */
    bool frame_guessed;         /* the current frame's caller must be guessed */
    bool guess_requested;       /* the walk stopped there to guess */
    bool continuing;            /* the walk restarts at a guessed caller, already counted */
    bool guess_rbp_ok;
    uint64_t guess_sp, guess_rbp;
    size_t walk_frames;         /* frames seen by the current libdwfl walk */
    bool callee_trampoline;     /* the last frame was a signal trampoline's */
    pv_preserved_regs preserved; /* the current frame's, where libdw loses some */
    bool restart_requested;     /* the walk stopped to restart at the current frame */
};

const char *pv_unwind_stop_name(pv_unwind_stop stop)
{
    switch (stop) {
    case PV_UNWIND_END_OF_STACK: return "end of stack";
    case PV_UNWIND_MAX_FRAMES: return "max frames";
    case PV_UNWIND_NO_USER_REGS: return "no user registers";
    case PV_UNWIND_NO_USER_STACK: return "no user stack";
    case PV_UNWIND_BAD_SAMPLE: return "bad sample";
    case PV_UNWIND_UNSUPPORTED: return "unsupported";
    case PV_UNWIND_NO_ELF: return "no ELF file";
    case PV_UNWIND_STEP_FAILED: return "unwind step failed";
    }
    return "?";
}

static void stop_with(pv_unwinder *u, pv_unwind_stop stop, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void stop_with(pv_unwinder *u, pv_unwind_stop stop, const char *fmt, ...)
{
    u->stopped = true;
    u->res->stop = stop;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->res->detail, sizeof u->res->detail, fmt, ap);
    va_end(ap);
}

/* A session reads a separate debug file only for its .debug_frame, the CFI
 * of code .eh_frame does not cover (libdwfl turns to it when an .eh_frame
 * step fails, and frame_callback asks it for rows).  Opening the file reads
 * all its DWARF, inflating every compressed section, once per process's session;
 * so when the shared debug info (debug_cache.h, where the file is opened
 * once) says the file has no .debug_frame, the session is told there is
 * no debug file: libdwfl would have found no CFI in it anyway.  The
 * module's userdata is the unwinder. */
static int find_debug_frame_file(Dwfl_Module *mod, void **userdata, const char *modname,
                                 Dwarf_Addr base, const char *file_name,
                                 const char *debuglink_file, GElf_Word debuglink_crc,
                                 char **debuginfo_file_name)
{
    pv_unwinder *u = userdata ? *userdata : NULL;
    if (u && u->debug_cache && file_name &&
        !pv_debug_cache_has_debug_frame(u->debug_cache, file_name))
        return -1;
    return pv_elf_snapshot_find_debuginfo(mod, userdata, modname, base, file_name,
                                          debuglink_file, debuglink_crc, debuginfo_file_name);
}

pv_unwinder *pv_unwinder_new(const char *arch)
{
    pv_unwinder *u = pv_calloc(1, sizeof *u);
    if (!u)
        return NULL;
    struct utsname host;
    if (!arch && uname(&host) == 0)
        arch = host.machine;
    u->family = pv_unwind_arch_family(arch);
    snprintf(u->arch_name, sizeof u->arch_name, "%.31s", arch ? arch : "unknown");
    for (size_t i = 0; i < CACHED_FILES; i++)
        u->files[i].fd = -1;
    elf_version(EV_CURRENT);
    /* Modules come from the files the caller names (dwfl_report_elf);
     * .debug_frame may come from a separate debug file, found the
     * standard way (build-id under /usr/lib/debug, .gnu_debuglink), when
     * it has one. */
    u->callbacks.find_elf = dwfl_build_id_find_elf;
    u->callbacks.find_debuginfo = find_debug_frame_file;
    u->callbacks.section_address = dwfl_offline_section_address;
    u->callbacks.debuginfo_path = &u->debuginfo_path;
    return u;
}

void pv_unwinder_use_debug_cache(pv_unwinder *u, pv_debug_cache *cache)
{
    u->debug_cache = cache;
}

static void session_end(process_session *p)
{
    if (p->dwfl)
        dwfl_end(p->dwfl);
    memset(p, 0, sizeof *p);
}

void pv_unwinder_free(pv_unwinder *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < CACHED_PROCESSES; i++)
        session_end(&u->sessions[i]);
    for (size_t i = 0; i < CACHED_FILES; i++) {
        if (u->files[i].fd >= 0)
            close(u->files[i].fd);
        free(u->files[i].path);
    }
    for (size_t i = 0; i < u->nr_failed; i++)
        free(u->failed[i]);
    free(u);
}

static bool path_failed(const pv_unwinder *u, const char *path)
{
    for (size_t i = 0; i < u->nr_failed; i++)
        if (!strcmp(u->failed[i], path))
            return true;
    return false;
}

static void remember_failed(pv_unwinder *u, const char *path)
{
    char *copy = pv_strdup(path);
    if (!copy)
        return;
    if (u->nr_failed < FAILED_PATHS) {
        u->failed[u->nr_failed++] = copy;
    } else {
        free(u->failed[u->next_failed]);
        u->failed[u->next_failed] = copy;
        u->next_failed = (u->next_failed + 1) % FAILED_PATHS;
    }
}

/* ---- memory: the stack copy, else the mapped file ---------------------- */

/* The caller's map at addr; fields a caller leaves alone read as 0. */
static bool lookup_map(pv_unwinder *u, uint64_t addr, pv_unwind_map *map)
{
    memset(map, 0, sizeof *map);
    return u->find_map(u->ctx, addr, map);
}


static int file_fd(pv_unwinder *u, const char *path)
{
    open_file *victim = &u->files[0];
    for (size_t i = 0; i < CACHED_FILES; i++) {
        open_file *f = &u->files[i];
        if (f->path && !strcmp(f->path, path)) {
            f->last_use = ++u->clock;
            return f->fd;
        }
        if (f->last_use < victim->last_use)
            victim = f;
    }
    if (path_failed(u, path))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        remember_failed(u, path);
        return -1;
    }
    char *copy = pv_strdup(path);
    if (!copy) {
        close(fd);
        return -1;
    }
    if (victim->fd >= 0)
        close(victim->fd);
    free(victim->path);
    victim->path = copy;
    victim->fd = fd;
    victim->last_use = ++u->clock;
    return fd;
}

/* A word of the mapped file at addr: the file's bytes at the map's offset. */
static bool read_mapped_file(pv_unwinder *u, const pv_unwind_map *map, uint64_t addr,
                             uint64_t *word)
{
    unsigned n = u->abi->word_size;
    if (!map->path || map->end - addr < n)
        return false;
    uint64_t offset = addr - map->start + map->pgoff;
    if (offset < map->pgoff || offset > (uint64_t)INT64_MAX - n)
        return false;
    int fd = file_fd(u, map->path);
    if (fd < 0)
        return false;
    uint8_t bytes[8] = { 0 };
    if (pread(fd, bytes, n, (off_t)offset) != (ssize_t)n)
        return false;
    *word = n == 8 ? pv_load_u64(bytes, u->sample->swap) : pv_load_u32(bytes, u->sample->swap);
    return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    pv_unwinder *u = arg;
    unsigned n = u->abi->word_size;
    /* The copy covers [sp, sp + dyn_size).  Like perf's reader, a word
     * counts as inside only when it ends strictly before the copy does;
     * the last word is looked for in the maps instead. */
    if (addr >= u->sp && addr - u->sp < u->stack_len && u->stack_len - (addr - u->sp) > n) {
        const uint8_t *p = u->stack + (addr - u->sp);
        *result = n == 8 ? pv_load_u64(p, u->sample->swap) : pv_load_u32(p, u->sample->swap);
        return true;
    }
    /* Outside the copy, perf reads the mapped file; an address in no map
     * fails the step, but one in a map whose bytes cannot be had (the rest
     * of the stack, the heap, a file that is gone) reads as 0 -- which,
     * as a return address, perf shows as a last frame at address -1. */
    pv_unwind_map map;
    if (!lookup_map(u, addr, &map) || addr < map.start || addr >= map.end) {
        u->read_failed = true;
        return false;
    }
    uint64_t word;
    *result = read_mapped_file(u, &map, addr, &word) ? word : 0;
    return true;
}

/* ---- the one thread of a session: the sample's registers ------------- */

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
    (void)dwfl;
    if (*thread_argp)
        return 0;
    *thread_argp = dwfl_arg;
    return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
    (void)dwfl;
    (void)tid;
    *thread_argp = dwfl_arg;
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    pv_unwinder *u = thread_arg;
    const pv_unwind_abi *abi = u->abi;
    for (unsigned r = 0; r < abi->nr_dwarf; r++) {
        if (!u->regs_present[r])
            continue;   /* not sampled: an error later if a frame needs it */
        Dwarf_Word value = u->dwarf_regs[r];
        if (!dwfl_thread_state_registers(thread, (int)r, 1, &value))
            return false;
    }
    dwfl_thread_state_register_pc(thread, u->pc);
    return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* ---- modules: the ELF files of the maps the unwind passes ------------- */

/* Where the file's addresses land in the process (the load bias): the map
 * puts file offset pgoff at start, and the PT_LOAD segment holding that
 * offset says which address the file gives it. */
static uint64_t load_bias(Elf *elf, const pv_unwind_map *map)
{
    size_t phnum;
    if (elf_getphdrnum(elf, &phnum) == 0) {
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
            if (!ph || ph->p_type != PT_LOAD)
                continue;
            /* the kernel maps whole pages: pgoff may be below p_offset */
            uint64_t page_start = ph->p_offset & ~(uint64_t)0xfff;
            if (map->pgoff >= page_start && map->pgoff - page_start < ph->p_filesz + (ph->p_offset - page_start))
                return map->start - (ph->p_vaddr - ph->p_offset + map->pgoff);
        }
    }
    return map->start - map->pgoff;
}

/* Whether perf's unwinder misses the CFI of this image: it places the
 * unwind table at perf_lowest_start less the first segment's page-aligned
 * address, which is the load bias only when that map begins the image. */
static bool perf_misses_cfi(const pv_unwinder *u, Elf *elf, uint64_t bias, const pv_unwind_map *map)
{
    if (!map->perf_lowest_start || u->abi != &pv_unwind_abi_x86_64)
        return false;
    size_t phnum;
    if (elf_getphdrnum(elf, &phnum) != 0)
        return false;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
        if (ph && ph->p_type == PT_LOAD)
            return map->perf_lowest_start - (ph->p_vaddr & ~(uint64_t)0xfff) != bias;
    }
    return false;
}

/* The module for the map at pc, reported now if the session lacks it.
 * NULL with the unwind stopped when the map has no ELF file; NULL with
 * u->conflict when the session holds another file there (the process
 * exec'ed, or unmapped and mapped again): the caller starts over. */
static Dwfl_Module *module_for(pv_unwinder *u, uint64_t pc, bool leaf)
{
    process_session *p = u->session;
    pv_unwind_map map;
    if (!lookup_map(u, pc, &map) || pc < map.start || pc >= map.end) {
        stop_with(u, PV_UNWIND_NO_ELF, "0x%llx is in no map of process %d",
                  (unsigned long long)pc, (int)u->sample->pid);
        return NULL;
    }
    if (!map.path) {
        stop_with(u, PV_UNWIND_NO_ELF, "0x%llx is in memory that is not a file",
                  (unsigned long long)pc);
        return NULL;
    }
    Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);
    if (mod) {
        const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        Dwarf_Addr bias;
        Elf *elf = dwfl_module_getelf(mod, &bias);
        if (name && elf && !strcmp(name, map.path) && bias == load_bias(elf, &map)) {
            u->frame_guessed = perf_misses_cfi(u, elf, bias, &map);
            return mod;
        }
        u->conflict = true;
        return NULL;
    }
    if (path_failed(u, map.path)) {
        stop_with(u, PV_UNWIND_NO_ELF, "0x%llx: %s is not a readable ELF file",
                  (unsigned long long)pc, map.path);
        return NULL;
    }
    /* The bias needs the program headers: read them from a handle of our
     * own, then let libdwfl open the file for the module. */
    int fd = open(map.path, O_RDONLY | O_CLOEXEC);
    Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    GElf_Ehdr ehdr_mem, *ehdr = elf ? gelf_getehdr(elf, &ehdr_mem) : NULL;
    if (!ehdr) {
        if (elf)
            elf_end(elf);
        if (fd >= 0)
            close(fd);
        remember_failed(u, map.path);
        stop_with(u, PV_UNWIND_NO_ELF, "0x%llx: %s is not a readable ELF file",
                  (unsigned long long)pc, map.path);
        return NULL;
    }
    uint16_t machine = ehdr->e_machine;
    uint64_t bias = load_bias(elf, &map);
    elf_end(elf);
    close(fd);
    if (machine != u->abi->elf_machine) {
        if (leaf)
            stop_with(u, PV_UNWIND_UNSUPPORTED, "%s is for ELF machine %u, the registers are %s",
                      map.path, machine, u->abi->name);
        else
            stop_with(u, PV_UNWIND_NO_ELF, "0x%llx: %s is for ELF machine %u, not %s",
                      (unsigned long long)pc, map.path, machine, u->abi->name);
        return NULL;
    }
    /* libdwfl maps what it is given: a snapshot (unwind/elf_snapshot.h) */
    char why[256];
    int snapshot = pv_elf_snapshot(map.path, -1, why, sizeof why);
    dwfl_report_begin_add(p->dwfl);
    mod = snapshot >= 0 ? dwfl_report_elf(p->dwfl, map.path, map.path, snapshot, bias, true) : NULL;
    dwfl_report_end(p->dwfl, NULL, NULL);
    if (!mod && snapshot >= 0)
        close(snapshot);
    void **userdata = NULL;
    if (mod)
        dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
    if (userdata)
        *userdata = u;      /* for find_debug_frame_file */
    if (!mod) {
        const char *why = dwfl_errmsg(-1);
        if (why && strstr(why, "overlap")) {
            u->conflict = true;
            return NULL;
        }
        remember_failed(u, map.path);
        stop_with(u, PV_UNWIND_NO_ELF, "0x%llx: %s: %s", (unsigned long long)pc, map.path,
                  why ? why : "cannot report");
        return NULL;
    }
    Dwarf_Addr mod_bias;
    Elf *mod_elf = dwfl_module_getelf(mod, &mod_bias);
    u->frame_guessed = mod_elf && perf_misses_cfi(u, mod_elf, mod_bias, &map);
    return mod;
}

/* ---- the walk ---------------------------------------------------------- */

static void push_ip(pv_unwinder *u, uint64_t ip)
{
    u->ips[u->res->nr++] = ip;
}

/* A return address that read as 0 ends the stack.  perf's unwinder still
 * counts it as a frame, at 0 - 1; so does this one, to give the same
 * stacks (perf report shows it as an [unknown] caller). */
static void push_zero_return(pv_unwinder *u)
{
    uint64_t minus_one = u->abi->word_size == 4 ? 0xffffffffu : UINT64_MAX;
    if (u->res->nr < u->max_frames)
        push_ip(u, minus_one);
    stop_with(u, PV_UNWIND_END_OF_STACK, "return address 0");
}

/* Whether the CFI of the frame at lookup_pc says its caller's return
 * address is undefined: the outermost frame (glibc's _start). */
static bool return_address_undefined(pv_unwinder *u, uint64_t lookup_pc)
{
    Dwarf_Frame *row = pv_cfi_row(u->session->dwfl, lookup_pc);
    bool undefined = row && pv_cfi_row_return_address_undefined(row);
    free(row);
    return undefined;
}

/* Ends the walk at a frame perf has no CFI for; its stack pointer and
 * frame pointer are what perf's guess starts from. */
static int request_guess(pv_unwinder *u, Dwfl_Frame *state)
{
    Dwarf_Word sp = 0, rbp = 0;
    u->guess_requested = true;
    u->guess_rbp_ok = dwfl_frame_reg(state, 7, &sp) == 0 && dwfl_frame_reg(state, 6, &rbp) == 0;
    u->guess_sp = sp;
    u->guess_rbp = rbp;
    return DWARF_CB_ABORT;
}

/* perf's guess of a caller without CFI (libunwind's x86_64 frame chain):
 * a frame pointer at or above the stack pointer and less than 16 KiB
 * above it holds the caller's frame pointer, the return address above it.
 * true with the caller counted and the registers set to restart there. */
static bool guess_caller(pv_unwinder *u)
{
    uint64_t rbp = u->guess_rbp, sp = u->guess_sp;
    uint64_t after = u->ips[u->res->nr - 1];
    u->res->perf_guesses++;
    if (!u->guess_rbp_ok) {
        stop_with(u, PV_UNWIND_STEP_FAILED, "after 0x%llx: no CFI for perf, and no frame pointer",
                  (unsigned long long)after);
        return false;
    }
    Dwarf_Word saved_rbp, ret;
    if (rbp == 0 || !memory_read(NULL, rbp, &saved_rbp, u) || rbp < sp || rbp - sp > 0x4000) {
        stop_with(u, PV_UNWIND_END_OF_STACK,
                  "after 0x%llx: no CFI for perf, and the frame pointer leads nowhere",
                  (unsigned long long)after);
        return false;
    }
    if (!memory_read(NULL, rbp + 8, &ret, u)) {
        stop_with(u, PV_UNWIND_STEP_FAILED, "after 0x%llx: the guessed caller is in no map",
                  (unsigned long long)after);
        return false;
    }
    if (u->res->nr >= u->max_frames) {
        stop_with(u, PV_UNWIND_MAX_FRAMES, "%zu frames", u->max_frames);
        return false;
    }
    if (ret == 0) {
        push_zero_return(u);
        return false;
    }
    push_ip(u, ret - 1);
    /* The caller as perf's unwinder knows it: pc, frame pointer, and a
     * stack pointer 16 bytes above the callee's (libunwind's guess moves
     * its CFA, which stands for the stack pointer, by 16 whatever the
     * frame pointer was); the other registers unknown.  libdwfl restarts
     * there, looking up the CFI at the call (ret - 1) as for any caller. */
    memset(u->regs_present, 0, sizeof u->regs_present);
    u->dwarf_regs[6] = saved_rbp;
    u->dwarf_regs[7] = sp + 16;
    u->dwarf_regs[16] = ret - 1;
    u->regs_present[6] = u->regs_present[7] = u->regs_present[16] = true;
    u->pc = ret - 1;
    return true;
}

/* Ends the walk to restart it at this frame (pc: its lookup pc, already
 * counted), with the registers libdwfl has for it and the preserved ones
 * followed (unwind/preserved_regs.h). */
static int request_restart(pv_unwinder *u, Dwfl_Frame *state, uint64_t pc)
{
    for (unsigned r = 0; r < u->abi->nr_dwarf; r++) {
        Dwarf_Word value = 0;
        u->regs_present[r] = dwfl_frame_reg(state, r, &value) == 0 ||
                             pv_preserved_get(&u->preserved, r, &value);
        /* the DWARF pc register (x86's), like libdwfl's pc, the lookup pc */
        u->dwarf_regs[r] = u->abi->perf_of_dwarf[r] == u->abi->perf_ip ? pc : value;
    }
    u->pc = pc;
    u->restart_requested = true;
    return DWARF_CB_ABORT;
}

static int frame_callback(Dwfl_Frame *state, void *arg)
{
    pv_unwinder *u = arg;
    /* Whether a read failed in the step that found this frame; the step to
     * its caller comes after this callback. */
    bool step_read_failed = u->read_failed;
    u->read_failed = false;
    Dwarf_Addr pc;
    if (!dwfl_frame_pc(state, &pc, NULL)) {
        stop_with(u, PV_UNWIND_STEP_FAILED, "%s", dwfl_errmsg(-1));
        return DWARF_CB_ABORT;
    }
    uint64_t ip = pc;
    pv_preserved_follow(&u->preserved, u->abi, state, u->walk_frames == 0);
    if (u->walk_frames++ == 0) {
        /* The initial frame: the leaf (its module was reported before
         * attaching), or a caller perf guessed, already counted. */
        if (!u->continuing)
            push_ip(u, pc);
        if (!module_for(u, pc, !u->continuing))
            return DWARF_CB_ABORT;
    } else {
        if (pc == 0) {
            if (step_read_failed)
                stop_with(u, PV_UNWIND_STEP_FAILED, "after 0x%llx: the caller's frame is in no map",
                          (unsigned long long)u->ips[u->res->nr - 1]);
            else
                push_zero_return(u);
            return DWARF_CB_ABORT;
        }
        /* A caller's pc is its return address: the call is just before --
         * unless the frame it returns to is a signal trampoline's, which
         * interrupted this one at pc (perf and libdwfl agree on that frame;
         * the trampoline's own frame perf counts as a call, libdwfl not).
         * The module must be reported before libdwfl steps further, or it
         * would fall back to guessing from the frame pointer.  The frame
         * counts before its file is known, as in perf: the unwind reached
         * it; only going further needs the file's CFI. */
        if (!u->callee_trampoline)
            ip = pc - 1;
        push_ip(u, ip);
        if (!module_for(u, ip, false)) {
            if (u->conflict)
                u->res->nr--;
            return DWARF_CB_ABORT;
        }
    }
    /* perf's unwinder guesses from the frame pointer too where the file
     * has no CFI for the frame (.fini, hand-written code); libdwfl's own
     * guess would place the caller's stack elsewhere */
    Dwarf_Frame *row = pv_cfi_row(u->session->dwfl, ip);
    if (!u->frame_guessed && u->abi == &pv_unwind_abi_x86_64 && !row)
        u->frame_guessed = true;
    if (u->frame_guessed && u->res->nr < u->max_frames) {
        free(row);
        return request_guess(u, state);
    }
    u->callee_trampoline = row && pv_cfi_row_signal_frame(row);
    if (u->res->nr >= u->max_frames) {
        free(row);
        stop_with(u, PV_UNWIND_MAX_FRAMES, "%zu frames", u->max_frames);
        return DWARF_CB_ABORT;
    }
    bool restart = pv_preserved_row(&u->preserved, u->abi, row);
    free(row);
    return restart ? request_restart(u, state, ip) : DWARF_CB_OK;
}

static process_session *session_for(pv_unwinder *u, int32_t pid)
{
    process_session *victim = &u->sessions[0];
    for (size_t i = 0; i < CACHED_PROCESSES; i++) {
        process_session *p = &u->sessions[i];
        if (p->used && p->pid == pid) {
            p->last_use = ++u->clock;
            return p;
        }
        if (!p->used) {
            if (victim->used)
                victim = p;
        } else if (victim->used && p->last_use < victim->last_use) {
            victim = p;
        }
    }
    session_end(victim);
    victim->used = true;
    victim->pid = pid;
    victim->last_use = ++u->clock;
    return victim;
}

/* One attempt over the current session; false when a module conflict asks
 * for a fresh session. */
static bool unwind_in_session(pv_unwinder *u)
{
    process_session *p = u->session;
    if (p->dwfl && p->abi != u->abi)
        session_end(p);     /* same pid, other ABI: an exec */
    if (!p->dwfl) {
        p->used = true;
        p->pid = u->sample->pid;
        p->last_use = ++u->clock;
        p->dwfl = dwfl_begin(&u->callbacks);
        if (!p->dwfl) {
            stop_with(u, PV_UNWIND_STEP_FAILED, "dwfl_begin: %s", dwfl_errmsg(-1));
            return true;
        }
        p->abi = NULL;
    }
    Dwfl_Module *leaf = module_for(u, u->pc, true);
    if (!leaf)
        return !u->conflict;
    if (!p->abi) {
        Dwarf_Addr bias;
        Elf *elf = dwfl_module_getelf(leaf, &bias);
        if (!elf || !dwfl_attach_state(p->dwfl, elf, p->pid ? p->pid : 1, &thread_callbacks, u)) {
            stop_with(u, PV_UNWIND_STEP_FAILED, "dwfl_attach_state: %s", dwfl_errmsg(-1));
            return true;
        }
        p->abi = u->abi;
    }
    int rc;
    for (;;) {
        u->walk_frames = 0;
        u->guess_requested = false;
        u->restart_requested = false;
        rc = dwfl_getthread_frames(p->dwfl, 1, frame_callback, u);
        if (u->conflict)
            return false;
        if (!u->guess_requested && !u->restart_requested)
            break;
        if (u->guess_requested && !guess_caller(u))
            return true;
        u->continuing = true;
    }
    if (u->stopped)
        return true;
    /* libdwfl ends the walk alike when the CFI leaves the caller's return
     * address undefined (the real end), when the address reads as 0 and
     * when it cannot be read at all; perf's unwinder tells them apart. */
    if (rc == 0 && return_address_undefined(u, u->ips[u->res->nr - 1]))
        stop_with(u, PV_UNWIND_END_OF_STACK, "outermost frame reached");
    else if (rc == 0 && u->read_failed)
        stop_with(u, PV_UNWIND_STEP_FAILED, "after 0x%llx: the caller's frame is in no map",
                  (unsigned long long)u->ips[u->res->nr - 1]);
    else if (rc == 0)
        push_zero_return(u);
    else
        stop_with(u, PV_UNWIND_STEP_FAILED, "after 0x%llx: %s",
                  (unsigned long long)u->ips[u->res->nr - 1], dwfl_errmsg(-1));
    return true;
}

/* The initial registers: the sample's, in DWARF numbering. */
static void restore_sample_registers(pv_unwinder *u)
{
    const pv_unwind_abi *abi = u->abi;
    for (unsigned r = 0; r < abi->nr_dwarf; r++) {
        uint64_t v = 0;
        u->regs_present[r] = pv_unwind_perf_reg(u->sample, (unsigned)abi->perf_of_dwarf[r], &v);
        u->dwarf_regs[r] = abi->word_size == 4 ? (v & 0xffffffffu) : v;
    }
    uint64_t pc = 0;
    pv_unwind_perf_reg(u->sample, (unsigned)abi->perf_ip, &pc);
    u->pc = abi->word_size == 4 ? (pc & 0xffffffffu) : pc;
}

Dwfl_Module *pv_unwinder_module(pv_unwinder *u, uint64_t ip)
{
    process_session *p = u->last_session;
    return p && p->used && p->dwfl ? dwfl_addrmodule(p->dwfl, ip) : NULL;
}

bool pv_unwinder_file_at(pv_unwinder *u, uint64_t ip, const char **path, uint64_t *file_addr)
{
    Dwfl_Module *mod = pv_unwinder_module(u, ip);
    Dwarf_Addr bias;
    const char *name = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
    if (!name || !dwfl_module_getelf(mod, &bias))
        return false;
    *path = name;
    *file_addr = ip - bias;
    return true;
}

size_t pv_unwind_sample(pv_unwinder *u, const pv_sample *s, pv_unwind_find_map_fn find_map,
                        void *ctx, uint64_t *ips, size_t max_frames, pv_unwind_result *res)
{
    memset(res, 0, sizeof *res);
    u->res = res;
    u->stopped = false;
    u->conflict = false;
    if (max_frames == 0) {
        stop_with(u, PV_UNWIND_MAX_FRAMES, "no room for frames");
        return 0;
    }
    const pv_sample_regs *regs = &s->regs_user;
    if (regs->abi == 0 || !regs->values) {
        stop_with(u, PV_UNWIND_NO_USER_REGS, "the sample has no user registers");
        return 0;
    }
    if (regs->nr != (uint64_t)__builtin_popcountll(regs->mask)) {
        stop_with(u, PV_UNWIND_BAD_SAMPLE, "%llu register values for mask 0x%llx",
                  (unsigned long long)regs->nr, (unsigned long long)regs->mask);
        return 0;
    }
    if (s->stack_user_size == 0 || !s->stack_user || s->stack_user_dyn_size == 0) {
        stop_with(u, PV_UNWIND_NO_USER_STACK, "no stack bytes were copied");
        return 0;
    }
    if (s->stack_user_dyn_size > s->stack_user_size) {
        stop_with(u, PV_UNWIND_BAD_SAMPLE, "stack dyn_size %llu exceeds the %llu bytes copied",
                  (unsigned long long)s->stack_user_dyn_size,
                  (unsigned long long)s->stack_user_size);
        return 0;
    }
    const pv_unwind_abi *abi = pv_unwind_abi_for(u->family, regs->abi);
    if (!abi) {
        stop_with(u, PV_UNWIND_UNSUPPORTED, "registers of ABI %llu on %s",
                  (unsigned long long)regs->abi, u->arch_name);
        return 0;
    }
    uint64_t pc, sp;
    if (!pv_unwind_perf_reg(s, (unsigned)abi->perf_ip, &pc)) {
        stop_with(u, PV_UNWIND_BAD_SAMPLE, "the pc was not sampled (mask 0x%llx)",
                  (unsigned long long)regs->mask);
        return 0;
    }
    if (abi->word_size == 4)
        pc &= 0xffffffffu;
    ips[0] = pc;
    res->nr = 1;
    if (!pv_unwind_perf_reg(s, (unsigned)abi->perf_sp, &sp)) {
        stop_with(u, PV_UNWIND_BAD_SAMPLE, "the stack pointer was not sampled (mask 0x%llx)",
                  (unsigned long long)regs->mask);
        return 1;
    }
    if (max_frames == 1) {
        stop_with(u, PV_UNWIND_MAX_FRAMES, "1 frame");
        return 1;
    }

    u->sample = s;
    u->abi = abi;
    u->find_map = find_map;
    u->ctx = ctx;
    u->pc = pc;
    u->sp = abi->word_size == 4 ? (sp & 0xffffffffu) : sp;
    u->stack = s->stack_user;
    u->stack_len = s->stack_user_dyn_size;
    u->ips = ips;
    u->max_frames = max_frames;

    u->session = session_for(u, s->pid);
    /* libdwfl stops a walk that runs out of memory as it stops at a
     * stack's end: its malloc's ENOMEM tells the two apart */
    errno = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        res->nr = 0;
        u->stopped = false;
        u->conflict = false;
        u->read_failed = false;
        u->continuing = false;
        u->frame_guessed = false;
        u->callee_trampoline = false;
        restore_sample_registers(u);
        if (unwind_in_session(u))
            break;
        /* A module no longer fits the maps: a fresh session, once. */
        session_end(u->session);
        u->session->used = true;
        u->session->pid = s->pid;
    }
    /* a session that ran out of memory may keep short tables: a fresh one
     * for the next sample */
    if (errno == ENOMEM) {
        pv_alloc_count_failure();
        session_end(u->session);
    }
    if (u->conflict)
        stop_with(u, PV_UNWIND_STEP_FAILED, "modules keep overlapping in process %d",
                  (int)s->pid);
    if (res->nr == 0) {
        /* Whatever stopped the unwind, the sampled pc is the leaf (perf's
         * unwinder reports it before it unwinds at all). */
        ips[0] = pc;
        res->nr = 1;
    }
    u->sample = NULL;
    u->last_session = u->session;
    u->session = NULL;
    return res->nr;
}
