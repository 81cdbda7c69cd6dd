#include "symbols/elf_image.h"

#include "symbols/demangle.h"
#include "base/pv_alloc.h"

#include <fcntl.h>
#include <pthread.h>
#include <gelf.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NT_GNU_BUILD_ID_TYPE 3

static bool libelf_usable;

static void ready_libelf(void)
{
    libelf_usable = elf_version(EV_CURRENT) != EV_NONE;
}

/* Once per process, whichever thread (a connection's, a profile's part)
 * opens an ELF file first. */
static bool libelf_ready(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ready_libelf);
    return libelf_usable;
}

static void read_build_id(Elf *elf, Elf_Scn *scn, pv_elf_image *img)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || !data->d_buf)
        return;
    size_t off = 0, name_off, desc_off;
    GElf_Nhdr nhdr;
    while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
        if (nhdr.n_type == NT_GNU_BUILD_ID_TYPE && nhdr.n_namesz == 4 &&
            memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 && nhdr.n_descsz > 0) {
            size_t n = nhdr.n_descsz < sizeof img->build_id ? nhdr.n_descsz : sizeof img->build_id;
            memcpy(img->build_id, (const char *)data->d_buf + desc_off, n);
            img->build_id_len = (uint8_t)n;
            return;
        }
    }
    (void)elf;
}

static void probe_elf(Elf *elf, pv_elf_image *img)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        shstrndx = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        if (sh.sh_type == SHT_SYMTAB)
            img->has_symtab = true;
        else if (sh.sh_type == SHT_DYNSYM)
            img->has_dynsym = true;
        else if (sh.sh_type == SHT_NOTE && img->build_id_len == 0)
            read_build_id(elf, scn, img);
        if (name && strcmp(name, ".gnu_debuglink") == 0 && sh.sh_type != SHT_NOBITS) {
            Elf_Data *data = elf_getdata(scn, NULL);
            if (data && data->d_buf && data->d_size > 0) {
                size_t n = strnlen(data->d_buf, data->d_size);
                if (n < sizeof img->debuglink && n > 0) {
                    memcpy(img->debuglink, data->d_buf, n);
                    img->debuglink[n] = 0;
                }
            }
        }
    }
    size_t nr_phdr;
    if (elf_getphdrnum(elf, &nr_phdr) != 0)
        return;
    for (size_t i = 0; i < nr_phdr && img->nr_loads < PV_ELF_MAX_LOADS; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        struct pv_elf_load *l = &img->loads[img->nr_loads++];
        l->offset = ph.p_offset;
        l->vaddr = ph.p_vaddr;
        l->filesz = ph.p_filesz;
    }
}

bool pv_elf_probe(const char *path, pv_elf_image *img, char *why, size_t why_size)
{
    memset(img, 0, sizeof *img);
    if (!libelf_ready()) {
        snprintf(why, why_size, "libelf unusable");
        return false;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_size, "cannot open %s", path);
        return false;
    }
    errno = 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf)
        pv_alloc_check_errno();
    bool ok = elf && elf_kind(elf) == ELF_K_ELF;
    if (ok)
        probe_elf(elf, img);
    else
        snprintf(why, why_size, "%s is not an ELF file", path);
    elf_end(elf);
    close(fd);
    return ok;
}

bool pv_elf_probe_memory(const void *image, size_t size, pv_elf_image *img)
{
    memset(img, 0, sizeof *img);
    if (!libelf_ready())
        return false;
    errno = 0;
    Elf *elf = elf_memory((char *)image, size);
    if (!elf)
        pv_alloc_check_errno();
    bool ok = elf && elf_kind(elf) == ELF_K_ELF;
    if (ok)
        probe_elf(elf, img);
    elf_end(elf);
    return ok;
}

/* perf shows C++ and Rust names demangled (symbols/demangle.h); kernel and
 * JIT names, which do not come through here, stay as they are.  The .plt
 * entries' names, with their suffix, are demangled at once; the symbol
 * tables' when asked for (symtree.h). */
static void add_demangled(pv_symtree *t, uint64_t start, uint64_t size, uint8_t binding,
                          const char *name, const char *suffix)
{
    char *demangled;
    if (!pv_demangle_into(name, &demangled)) {
        t->failed = true;
        return;
    }
    const char *base = demangled ? demangled : name;
    size_t n = strlen(base), k = strlen(suffix);
    char buf[512];
    char *full = n + k < sizeof buf ? buf : pv_malloc(n + k + 1);
    if (full) {
        memcpy(full, base, n);
        memcpy(full + n, suffix, k + 1);
        pv_symtree_insert(t, start, size, binding, full, n + k);
        if (full != buf)
            free(full);
    } else {
        t->failed = true;
    }
    free(demangled);
}

static bool section_is_text(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
    const char *name = shstrndx ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
    return name && strstr(name, "text");
}

/* What the symbols of a section may be, found once per section (a table
 * has thousands of symbols in a few sections). */
enum { SECTION_UNSEEN, SECTION_SKIPPED, SECTION_DATA, SECTION_TEXT };

static uint8_t section_kind(Elf *elf, size_t shstrndx, size_t index, uint8_t *seen, size_t nr_seen)
{
    if (index < nr_seen && seen[index] != SECTION_UNSEEN)
        return seen[index];
    Elf_Scn *scn = elf_getscn(elf, index);
    GElf_Shdr sh;
    uint8_t kind = !scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ? SECTION_SKIPPED
                   : section_is_text(elf, shstrndx, &sh)                       ? SECTION_TEXT
                                                                               : SECTION_DATA;
    if (index < nr_seen)
        seen[index] = kind;
    return kind;
}

/* The string table's bytes, when its names can be read in place as
 * elf_strptr reads them (a plain SHT_STRTAB held whole); NULL otherwise. */
static const Elf_Data *plain_strings(Elf *elf, size_t index)
{
    Elf_Scn *scn = elf_getscn(elf, index);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB || (sh.sh_flags & SHF_COMPRESSED))
        return NULL;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || !data->d_buf || data->d_off != 0 || data->d_size != sh.sh_size ||
        elf_getdata(scn, data) != NULL)
        return NULL;
    return data;
}

/* The name at offset of the string table (elf_strptr's answer). */
static const char *string_at(Elf *elf, size_t table, const Elf_Data *strings, size_t offset)
{
    if (strings && offset < strings->d_size) {
        const char *at = (const char *)strings->d_buf + offset;
        if (memchr(at, 0, strings->d_size - offset))
            return at;
    }
    return elf_strptr(elf, table, offset);
}

static void read_table(Elf *elf, Elf_Scn *table, const GElf_Shdr *table_sh, pv_symtree *t)
{
    errno = 0;
    Elf_Data *data = elf_getdata(table, NULL);
    if (!data)
        pv_alloc_check_errno();
    if (!data || table_sh->sh_entsize == 0)
        return;
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        shstrndx = 0;
    size_t nr_seen = 0;
    if (elf_getshdrnum(elf, &nr_seen) != 0)
        nr_seen = 0;
    uint8_t *seen = nr_seen ? pv_calloc(nr_seen, 1) : NULL;
    if (!seen)
        nr_seen = 0;    /* each symbol's section looked up */
    const Elf_Data *strings = plain_strings(elf, table_sh->sh_link);
    size_t count = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            break;
        if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
            sym.st_shndx >= SHN_LORESERVE)
            continue;
        int type = GELF_ST_TYPE(sym.st_info);
        int visibility = GELF_ST_VISIBILITY(sym.st_other);
        bool label = type == STT_NOTYPE && visibility != STV_HIDDEN && visibility != STV_INTERNAL;
        if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT && !label)
            continue;
        uint8_t kind = section_kind(elf, shstrndx, sym.st_shndx, seen, nr_seen);
        if (kind == SECTION_SKIPPED || (label && kind != SECTION_TEXT))
            continue;
        const char *name = string_at(elf, table_sh->sh_link, strings, sym.st_name);
        if (!name || !*name)
            continue;
        int bind = GELF_ST_BIND(sym.st_info);
        uint8_t binding = bind == STB_GLOBAL ? PV_BIND_GLOBAL
                        : bind == STB_WEAK ? PV_BIND_WEAK : PV_BIND_LOCAL;
        pv_symtree_insert_mangled(t, sym.st_value, sym.st_size, binding, name);
    }
    free(seen);
}

static Elf_Scn *section_named(Elf *elf, const char *wanted, GElf_Shdr *sh)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return NULL;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        const char *name;
        if (gelf_getshdr(scn, sh) && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
            strcmp(name, wanted) == 0)
            return scn;
    }
    return NULL;
}

/* perf names the .plt entries after the .dynsym symbols of the .rela.plt
 * relocations, in order: "name@plt" ("@plt" for a relocation without a
 * symbol), one .plt entry each after the header entry. */
static void synthesize_plt(Elf *elf, pv_symtree *t)
{
    GElf_Shdr rel_sh, plt_sh, dynsym_sh;
    Elf_Scn *rel = section_named(elf, ".rela.plt", &rel_sh);
    bool rela = rel != NULL;
    if (!rel)
        rel = section_named(elf, ".rel.plt", &rel_sh);
    Elf_Scn *plt = section_named(elf, ".plt", &plt_sh);
    if (!rel || !plt || plt_sh.sh_entsize == 0)
        return;
    Elf_Scn *dynsym = elf_getscn(elf, rel_sh.sh_link);
    if (!dynsym || !gelf_getshdr(dynsym, &dynsym_sh) || dynsym_sh.sh_type != SHT_DYNSYM)
        return;
    errno = 0;
    Elf_Data *rel_data = elf_getdata(rel, NULL);
    Elf_Data *sym_data = elf_getdata(dynsym, NULL);
    if (!rel_data || !sym_data)
        pv_alloc_check_errno();
    GElf_Ehdr eh;
    if (!rel_data || !sym_data || !gelf_getehdr(elf, &eh))
        return;
    uint64_t entry = plt_sh.sh_entsize;
    uint64_t at = plt_sh.sh_addr;
    switch (eh.e_machine) {
    case EM_ARM: at += 20; break;
    case EM_AARCH64: at += 32; break;
    default: at += entry; break;    /* the header is one entry */
    }
    size_t count = rel_sh.sh_entsize ? rel_sh.sh_size / rel_sh.sh_entsize : 0;
    for (size_t i = 0; i < count; i++, at += entry) {
        uint64_t info;
        if (rela) {
            GElf_Rela r;
            if (!gelf_getrela(rel_data, (int)i, &r))
                break;
            info = r.r_info;
        } else {
            GElf_Rel r;
            if (!gelf_getrel(rel_data, (int)i, &r))
                break;
            info = r.r_info;
        }
        size_t index = gelf_getclass(elf) == ELFCLASS32 ? ELF32_R_SYM(info) : ELF64_R_SYM(info);
        GElf_Sym sym;
        const char *sym_name = NULL;
        if (gelf_getsym(sym_data, (int)index, &sym))
            sym_name = elf_strptr(elf, dynsym_sh.sh_link, sym.st_name);
        add_demangled(t, at, entry, PV_BIND_GLOBAL, sym_name ? sym_name : "", "@plt");
    }
}

/* .symtab, then .dynsym, each followed by perf's fixes over the tree. */
static void read_symbols(Elf *elf, pv_symtree *t)
{
    const unsigned kinds[2] = { SHT_SYMTAB, SHT_DYNSYM };
    for (int k = 0; k < 2; k++) {
        size_t before = t->nr;
        for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            if (gelf_getshdr(scn, &sh) && sh.sh_type == kinds[k])
                read_table(elf, scn, &sh, t);
        }
        if (t->nr > before)
            pv_symtree_fixup(t);
    }
}

/* Calls fn on path's ELF; false when it is not one. */
static bool with_elf(const char *path, void (*fn)(Elf *, pv_symtree *), pv_symtree *t)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    errno = 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf)
        pv_alloc_check_errno();
    bool ok = elf && elf_kind(elf) == ELF_K_ELF;
    if (ok)
        fn(elf, t);
    elf_end(elf);
    close(fd);
    return ok;
}

bool pv_elf_read_symbols(const char *path, const char *runtime_path, pv_symtree *t)
{
    if (!libelf_ready() || !with_elf(path, read_symbols, t))
        return false;
    /* the .plt and its relocations are the running image's (a debug
     * file's copies hold no bytes); perf adds them last, unfixed */
    with_elf(runtime_path, synthesize_plt, t);
    return !t->failed;
}

bool pv_elf_read_symbols_memory(const void *image, size_t size, pv_symtree *t)
{
    if (!libelf_ready())
        return false;
    errno = 0;
    Elf *elf = elf_memory((char *)image, size);
    if (!elf)
        pv_alloc_check_errno();
    bool ok = elf && elf_kind(elf) == ELF_K_ELF;
    if (ok) {
        read_symbols(elf, t);
        synthesize_plt(elf, t);
    }
    elf_end(elf);
    return ok && !t->failed;
}

uint64_t pv_elf_offset_to_vaddr(const pv_elf_image *img, uint64_t off)
{
    for (size_t i = 0; i < img->nr_loads; i++) {
        const struct pv_elf_load *l = &img->loads[i];
        if (off >= l->offset && off - l->offset < l->filesz)
            return off - l->offset + l->vaddr;
    }
    return off;
}
