/*
 * image.c — what a module image is, and where its kernel table lies in it.
 *
 * An image is PTX text, an ELF cubin (GPU machine code from ptxas or nvJitLink) or a
 * fatbin (several of those, as nvcc packs them), told apart by their first bytes.
 *
 * The kernel table tells the runtime each kernel's entry symbol and signature, so that
 * kc_launch can check and pack arguments without the source. It is text, one kernel
 * per line:
 *
 *     SYMBOL SIGNATURE[ written=I,J][ cooperative]
 *     add add(float32[:], float32[:], float32[:]) written=2
 *
 * "written" lists the array parameters the kernel stores to (0-based): the others were
 * compiled noalias, and the launch checks that a written array overlaps none of them.
 * "cooperative" marks a kernel that synchronises its grid (cuda.cg.this_grid().sync()):
 * it is launched with cuLaunchCooperativeKernel, every block resident at once.
 * kcc puts the table into every PTX it makes twice (src/compile.c): as
 * "// kcc-kernel: LINE" comments in front, and as a NUL-terminated `.visible .global`
 * byte array named __kcc_kernels. Comments do not survive ptxas, but a visible global
 * does, with its initial bytes, in the cubin's .nv.global.init section (.nv.constant3
 * in cubins of kcc before the table moved to .global): found here by
 * walking the ELF symbol table on the host (no driver, no device round trip), or for a
 * fatbin, whose members may be compressed, read back through the driver by module.c.
 *
 * Only bounds-checked reads through memcpy touch the image: a truncated or hostile
 * file gives an error, never a read past its end.
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"

#define ELF_EM_CUDA 190
#define ELF_SHT_PROGBITS 1
#define ELF_SHT_SYMTAB 2
#define FATBIN_MAGIC 0xBA55ED50u

rt_image_kind rt_image_kind_of(const void *data, size_t len) {
  const unsigned char *p = data;
  if (!p) return RT_IMAGE_UNKNOWN;
  if (len >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F')
    return RT_IMAGE_CUBIN;
  if (len >= 4) {
    uint32_t magic;
    memcpy(&magic, p, 4);
    if (magic == FATBIN_MAGIC) return RT_IMAGE_FATBIN;
  }
  /* PTX: text with a .version directive (after comments, such as the table) */
  static const char version[] = ".version";
  for (size_t i = 0; i + sizeof version - 1 <= len; i++) {
    if (p[i] == '\0') break;
    if (memcmp(p + i, version, sizeof version - 1) == 0) return RT_IMAGE_PTX;
  }
  return RT_IMAGE_UNKNOWN;
}

/* The word after a PTX directive (".version" -> "7.8", ".target" -> "sm_90"), into
   out; "?" when the text lacks it. */
void rt_ptx_directive(const char *ptx, const char *directive, char *out, size_t len) {
  snprintf(out, len, "?");
  const char *p = ptx ? strstr(ptx, directive) : NULL;
  if (!p) return;
  p += strlen(directive);
  while (*p == ' ' || *p == '\t') p++;
  size_t n = strcspn(p, " \t\r\n,");
  if (n > 0 && n < len) snprintf(out, len, "%.*s", (int)n, p);
}

const char *rt_image_kind_name(rt_image_kind k) {
  switch (k) {
  case RT_IMAGE_PTX: return "PTX";
  case RT_IMAGE_CUBIN: return "cubin";
  case RT_IMAGE_FATBIN: return "fatbin";
  default: return "unknown image";
  }
}

/* ---- Little-endian reads within bounds ---------------------------------------------- */
typedef struct elf_view {
  const unsigned char *p;
  size_t len;
} elf_view;

static int rd(const elf_view *e, uint64_t at, unsigned n, uint64_t *out) {
  if (at > e->len || n > e->len - at) return 0;
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v |= (uint64_t)e->p[at + i] << (8 * i);
  *out = v;
  return 1;
}

typedef struct elf_section {
  uint64_t type, offset, size, link, entsize;
} elf_section;

static int section(const elf_view *e, uint64_t shoff, uint64_t shentsize, uint64_t i,
                   elf_section *s) {
  uint64_t at = shoff + i * shentsize;
  return rd(e, at + 4, 4, &s->type) && rd(e, at + 24, 8, &s->offset) &&
         rd(e, at + 32, 8, &s->size) && rd(e, at + 40, 4, &s->link) &&
         rd(e, at + 56, 8, &s->entsize) && s->offset <= e->len &&
         s->size <= e->len - s->offset;
}

/* The NUL-terminated name at offset off of a string table section, or NULL. */
static const char *strtab_name(const elf_view *e, const elf_section *strtab, uint64_t off) {
  if (off >= strtab->size) return NULL;
  const char *s = (const char *)e->p + strtab->offset + off;
  return memchr(s, '\0', strtab->size - off) ? s : NULL;
}

int rt_cubin_table(const void *data, size_t len, const char **table, size_t *tlen,
                   char *msg, size_t msglen) {
  elf_view e = {data, len};
  uint64_t cls, endian, machine, shoff, shentsize, shnum;
  *table = NULL;
  *tlen = 0;
  if (rt_image_kind_of(data, len) != RT_IMAGE_CUBIN || !rd(&e, 4, 1, &cls) ||
      !rd(&e, 5, 1, &endian) || !rd(&e, 18, 2, &machine) || !rd(&e, 0x28, 8, &shoff) ||
      !rd(&e, 0x3a, 2, &shentsize) || !rd(&e, 0x3c, 2, &shnum)) {
    snprintf(msg, msglen, "not an ELF file, or cut short");
    return -1;
  }
  if (cls != 2 || endian != 1) {
    snprintf(msg, msglen, "not a 64-bit little-endian ELF file, as cubins are");
    return -1;
  }
  if (machine != ELF_EM_CUDA) {
    snprintf(msg, msglen, "an ELF file for machine %u, not a CUDA cubin (machine %d)",
             (unsigned)machine, ELF_EM_CUDA);
    return -1;
  }
  if (shentsize < 64 || shnum == 0) {
    snprintf(msg, msglen, "a cubin without sections");
    return -1;
  }
  for (uint64_t i = 0; i < shnum; i++) {
    elf_section sym, str;
    if (!section(&e, shoff, shentsize, i, &sym)) {
      snprintf(msg, msglen, "section %u lies outside the file", (unsigned)i);
      return -1;
    }
    if (sym.type != ELF_SHT_SYMTAB) continue;
    if (sym.entsize < 24 || sym.link >= shnum || !section(&e, shoff, shentsize, sym.link, &str)) {
      snprintf(msg, msglen, "a bad symbol table");
      return -1;
    }
    for (uint64_t at = sym.offset; at + 24 <= sym.offset + sym.size; at += sym.entsize) {
      uint64_t name = 0, shndx = 0, value = 0, size = 0;
      rd(&e, at, 4, &name);
      rd(&e, at + 6, 2, &shndx);
      rd(&e, at + 8, 8, &value);
      rd(&e, at + 16, 8, &size);
      const char *nm = strtab_name(&e, &str, name);
      if (!nm || strcmp(nm, RT_TABLE_SYMBOL) != 0) continue;
      elf_section data_sec;
      if (shndx == 0 || shndx >= shnum || !section(&e, shoff, shentsize, shndx, &data_sec) ||
          data_sec.type != ELF_SHT_PROGBITS || value > data_sec.size ||
          size > data_sec.size - value || size == 0) {
        snprintf(msg, msglen, "the kernel table symbol %s has no data", RT_TABLE_SYMBOL);
        return -1;
      }
      const char *t = (const char *)e.p + data_sec.offset + value;
      size_t n = (size_t)size;
      while (n > 0 && t[n - 1] == '\0') n--;
      if (memchr(t, '\0', n)) {
        snprintf(msg, msglen, "the kernel table %s is not text", RT_TABLE_SYMBOL);
        return -1;
      }
      *table = t;
      *tlen = n;
      return 0;
    }
  }
  snprintf(msg, msglen, "no kernel table (%s): not made by kcc; pass the table to "
           "kc_module_load_image", RT_TABLE_SYMBOL);
  return 1;
}
