/*
 * Workload of tests/t_remap.sh: different files mapped, one after the
 * other, at the same address, so that one ip means different functions at
 * different times and in different processes.  A resolver that remembers
 * an earlier answer for an address (a cache) must not give it after the
 * map changed.  Recorded with perf record -g, compared with perf script.
 *
 *   remap LIB_A SYM_A LIB_B SYM_B [phase2]
 *
 * LIB_A and LIB_B are builds of tests/symbols/remap_lib.c with names of
 * the same length, so that SYM_A and SYM_B sit at the same file offset.
 * Each file is mapped whole (PROT_EXEC) at one address X and its function
 * run through a pointer into that mapping:
 *   A, B, A in turn (munmap, then mmap MAP_FIXED at X);
 *   a forked child maps B over the A it inherited while the parent runs A;
 *   the process execs itself ("phase2"), then maps B, then A, at X again
 *   (perf keeps the pre-exec maps until new ones cover them).
 */
#define _GNU_SOURCE    /* dladdr */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void (*spin_fn)(unsigned long);

/* The offset in the file of a function, from the loader's view of it. */
static uint64_t file_offset_of(const char *lib, const char *sym)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    void *addr = h ? dlsym(h, sym) : NULL;
    Dl_info info;
    if (!addr || !dladdr(addr, &info)) {
        fprintf(stderr, "remap: %s in %s: %s\n", sym, lib, dlerror());
        exit(1);
    }
    uint64_t vaddr = (uint64_t)((char *)addr - (char *)info.dli_fbase);
    const Elf64_Ehdr *eh = info.dli_fbase;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)info.dli_fbase + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr <= vaddr &&
            vaddr < ph[i].p_vaddr + ph[i].p_filesz)
            return vaddr - ph[i].p_vaddr + ph[i].p_offset;
    fprintf(stderr, "remap: %s not in a loaded segment of %s\n", sym, lib);
    exit(1);
}

/* Maps lib whole at at (NULL: where the kernel likes), returns where. */
static char *map_at(const char *lib, char *at, size_t *size)
{
    int fd = open(lib, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(lib);
        exit(1);
    }
    *size = (size_t)st.st_size;
    char *p = mmap(at, *size, PROT_READ | PROT_EXEC, MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

/* Runs the function at offset off of the mapping at base for ms milliseconds. */
static void run(char *base, uint64_t off, int ms)
{
    spin_fn f = (spin_fn)(uintptr_t)(base + off);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        f(100000);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    const char *lib_a = argv[1], *lib_b = argv[3];
    uint64_t off_a = file_offset_of(lib_a, argv[2]), off_b = file_offset_of(lib_b, argv[4]);
    if (off_a != off_b) {
        fprintf(stderr, "remap: %s and %s at different offsets (0x%llx, 0x%llx)\n", argv[2],
                argv[4], (unsigned long long)off_a, (unsigned long long)off_b);
        return 1;
    }
    size_t size;
    if (argc > 5) {     /* phase2, after the exec: B then A at the address of before */
        char *at = (char *)(uintptr_t)strtoull(argv[5], NULL, 16);
        run(map_at(lib_b, at, &size), off_b, 150);
        munmap(at, size);
        run(map_at(lib_a, at, &size), off_a, 150);
        return 0;
    }
    char *at = map_at(lib_a, NULL, &size);
    run(at, off_a, 150);
    munmap(at, size);
    run(map_at(lib_b, at, &size), off_b, 150);
    munmap(at, size);
    run(map_at(lib_a, at, &size), off_a, 150);
    pid_t child = fork();
    if (child == 0) {
        run(map_at(lib_b, at, &size), off_b, 150);
        _exit(0);
    }
    run(at, off_a, 150);
    waitpid(child, NULL, 0);
    munmap(at, size);
    char hex[32];
    snprintf(hex, sizeof hex, "%llx", (unsigned long long)(uintptr_t)at);
    char *args[] = { argv[0], argv[1], argv[2], argv[3], argv[4], hex, NULL };
    execv("/proc/self/exe", args);
    perror("execv");
    return 1;
}
