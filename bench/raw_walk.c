/*
 * The yardstick of `make bench`: the least work any reader must do to answer
 * "how many samples, how much period" — a bare loop over the mapped file that
 * steps from record header to record header and, for each sample, reads ip,
 * tid, time, period and the callchain.  No checks beyond staying inside the
 * file, no SQLite, no allocation.  It understands only what bench records
 * (a little-endian file-mode perf.data whose events share one sample_type).
 *
 *   raw_walk FILE    prints: samples, sum of periods, callchain frames, a checksum
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    SAMPLE_IP = 1u << 0, SAMPLE_TID = 1u << 1, SAMPLE_TIME = 1u << 2, SAMPLE_ADDR = 1u << 3,
    SAMPLE_READ = 1u << 4, SAMPLE_CALLCHAIN = 1u << 5, SAMPLE_ID = 1u << 6, SAMPLE_CPU = 1u << 7,
    SAMPLE_PERIOD = 1u << 8, SAMPLE_STREAM_ID = 1u << 9, SAMPLE_IDENTIFIER = 1u << 16,
};

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: raw_walk perf.data\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 104) {
        perror(argv[1]);
        return 1;
    }
    uint64_t size = (uint64_t)st.st_size;
    const uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED || memcmp(m, "PERFILE2", 8) != 0) {
        fprintf(stderr, "%s: not a little-endian file-mode perf.data\n", argv[1]);
        return 1;
    }
    uint64_t attrs_offset = u64_at(m + 24);
    uint64_t data_offset = u64_at(m + 40), data_size = u64_at(m + 48);
    if (attrs_offset > size || size - attrs_offset < 40 || data_offset > size ||
        size - data_offset < data_size) {
        fprintf(stderr, "%s: bad header\n", argv[1]);
        return 1;
    }
    uint64_t sample_type = u64_at(m + attrs_offset + 24);

    uint64_t samples = 0, period_sum = 0, frames = 0, checksum = 0;
    uint64_t at = data_offset, end = data_offset + data_size;
    while (end - at >= 8) {
        uint32_t type;
        uint16_t rsize;
        memcpy(&type, m + at, 4);
        memcpy(&rsize, m + at + 6, 2);
        if (rsize < 8 || end - at < rsize)
            break;
        if (type == 9 /* SAMPLE */) {
            const uint8_t *p = m + at + 8, *stop = m + at + rsize;
            uint64_t ip = 0, tid = 0, time = 0, period = 0;
            if (sample_type & SAMPLE_IDENTIFIER) p += 8;
            if (sample_type & SAMPLE_IP) { ip = u64_at(p); p += 8; }
            if (sample_type & SAMPLE_TID) { tid = u64_at(p) >> 32; p += 8; }
            if (sample_type & SAMPLE_TIME) { time = u64_at(p); p += 8; }
            if (sample_type & SAMPLE_ADDR) p += 8;
            if (sample_type & SAMPLE_ID) p += 8;
            if (sample_type & SAMPLE_STREAM_ID) p += 8;
            if (sample_type & SAMPLE_CPU) p += 8;
            if (sample_type & SAMPLE_PERIOD) { period = u64_at(p); p += 8; }
            if ((sample_type & SAMPLE_CALLCHAIN) && stop - p >= 8) {
                uint64_t nr = u64_at(p);
                p += 8;
                for (uint64_t i = 0; i < nr && stop - p >= 8; i++, p += 8) {
                    checksum += u64_at(p);
                    frames++;
                }
            }
            samples++;
            period_sum += period;
            checksum += ip ^ tid ^ time;
        }
        at += rsize;
    }
    printf("%llu\t%llu\t%llu\t%llu\n", (unsigned long long)samples,
           (unsigned long long)period_sum, (unsigned long long)frames,
           (unsigned long long)checksum);
    return 0;
}
