/*
 * A tiny JIT for tests/t_symbols.sh (x86-64 only): copies a counting loop
 * into anonymous executable memory, describes it in /tmp/perf-PID.map as a
 * JIT runtime would ("start size name" in hex), and runs it.  perf names the
 * samples there from that map; perfvtab must too.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* mov ecx, 0x10000000; 1: dec ecx; jnz 1b; ret */
static const unsigned char loop_code[] = {
    0xb9, 0x00, 0x00, 0x00, 0x10, 0xff, 0xc9, 0x75, 0xfc, 0xc3,
};

int main(void)
{
    unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED)
        return 1;
    memcpy(code + 64, loop_code, sizeof loop_code);
    if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0)
        return 1;
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    FILE *map = fopen(path, "w");
    if (!map)
        return 1;
    fprintf(map, "%lx %zx jitted_loop\n", (unsigned long)(code + 64), sizeof loop_code);
    fclose(map);
    void (*run)(void) = (void (*)(void))(code + 64);
    for (int i = 0; i < 3; i++)
        run();
    printf("%s\n", path);
    return 0;
}
