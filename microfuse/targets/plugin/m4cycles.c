/* QEMU TCG plugin: exact instruction count and a Cortex-M4 cycle estimate, marked at one pc.
 *
 * Every translated Thumb instruction is classified once, from its bytes, by the Cortex-M4 TRM's
 * cycle table (docs/cycle-model.md states the model); inline adds then count instructions and
 * static cycles as they execute. A callback at the start of every translation block adds what
 * only execution shows: +2 when the previous block ended in a change of flow (the next block does
 * not start where it fell through: a taken branch), -1 when a load/store opening this block is
 * pipelined behind a load that closed the previous one.
 *
 * Arguments (-plugin m4cycles.so,out=FILE,mark=0xADDR): each execution of the instruction at
 * `mark` appends "mark <instructions> <cycles>" to FILE (flushed at once, so the host can read it
 * while QEMU runs); at exit "total ..." and one "class <name> <count>" line per class follow.
 * With profile=PROF, PROF gets "<block pc> <cycles>" per translated block at exit (the
 * instructions' own cycles; bench/profile.py sums them per function).
 *
 * Debian's QEMU 7.2 ships no qemu-plugin.h: the subset of its plugin API used here is declared
 * below, as QEMU 7.2 defines it (API version 1). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU 7.2 plugin API (include/qemu/qemu-plugin.h), the part this plugin uses ---- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* only passed through */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* ---- the cycle table ---- */
enum kind {
    K_ALU, K_MUL, K_MLA, K_DIV, K_LOAD, K_STORE, K_DUAL, K_MULTI, K_BRANCH, K_TABLE,
    K_FP, K_FP_MAC, K_FP_DIV, K_FP_MOV2, K_FP_LDST, K_FP_MULTI, K_MISC, K_UNKNOWN, K_COUNT
};
static const char *const KIND_NAMES[K_COUNT] = {
    "alu", "mul", "mla", "div", "load", "store", "ldrd_strd", "ldm_stm", "branch", "tbb_tbh",
    "fp", "fp_mac", "fp_div_sqrt", "fp_vmov2", "fp_vldr_vstr", "fp_vldm_vstm", "misc", "unknown",
};
/* Cycles per class; K_MULTI and K_FP_MULTI add one per register moved. */
static const uint8_t KIND_CYCLES[K_COUNT] = {
    [K_ALU] = 1, [K_MUL] = 1, [K_MLA] = 2, [K_DIV] = 7, [K_LOAD] = 2, [K_STORE] = 2, [K_DUAL] = 3,
    [K_MULTI] = 1, [K_BRANCH] = 1, [K_TABLE] = 2, [K_FP] = 1, [K_FP_MAC] = 3, [K_FP_DIV] = 14,
    [K_FP_MOV2] = 2, [K_FP_LDST] = 2, [K_FP_MULTI] = 1, [K_MISC] = 1, [K_UNKNOWN] = 1,
};
#define TAKEN_BRANCH_CYCLES 2 /* pipeline refill after any change of flow */

struct decoded {
    enum kind kind;
    unsigned regs; /* registers moved by K_MULTI / words by K_FP_MULTI */
};

static struct decoded make(enum kind k, unsigned regs)
{
    struct decoded d = {k, regs};
    return d;
}

static struct decoded decode16(unsigned h)
{
    if ((h & 0xF800) == 0x4800) return make(K_LOAD, 0);                  /* LDR literal */
    if ((h & 0xF000) == 0x5000) return make(((h >> 9) & 7) < 3 ? K_STORE : K_LOAD, 0); /* reg offset */
    if ((h & 0xE000) == 0x6000 || (h & 0xF000) == 0x8000 || (h & 0xF000) == 0x9000)
        return make(h & 0x0800 ? K_LOAD : K_STORE, 0);                   /* imm offset, SP-relative */
    if ((h & 0xF000) == 0xC000) return make(K_MULTI, (unsigned)__builtin_popcount(h & 0xFF));
    if ((h & 0xF600) == 0xB400) return make(K_MULTI, (unsigned)__builtin_popcount(h & 0x1FF)); /* PUSH/POP */
    if ((h & 0xF500) == 0xB100) return make(K_BRANCH, 0);                /* CBZ, CBNZ */
    if ((h & 0xFF00) == 0xDF00 || (h & 0xFF00) == 0xDE00) return make(K_MISC, 0); /* SVC, UDF */
    if ((h & 0xF000) == 0xD000 || (h & 0xF800) == 0xE000) return make(K_BRANCH, 0);
    if ((h & 0xFF00) == 0x4700) return make(K_BRANCH, 0);                /* BX, BLX */
    if ((h & 0xFF00) == 0xBF00 || (h & 0xFF00) == 0xBE00 || (h & 0xFFE0) == 0xB660)
        return make(K_MISC, 0);                                          /* IT, hints, BKPT, CPS */
    if ((h & 0xFFC0) == 0x4340) return make(K_MUL, 0);                   /* MULS */
    return make(K_ALU, 0);
}

/* VFP (coprocessor 10/11) instructions of the FPv4-SP unit. */
static struct decoded decode_fp(unsigned h1, unsigned h2)
{
    unsigned cp = (h2 >> 8) & 0xF;
    if (cp != 10 && cp != 11) return make(K_UNKNOWN, 0);
    if ((h1 & 0x0F00) == 0x0E00) {
        if (h2 & 0x10) return make(K_FP, 0);                             /* VMOV core<->S, VMRS, VMSR */
        switch ((h1 >> 4) & 0xB) {                                       /* opc1 without the D bit */
        case 0x0: case 0x1: case 0x9: case 0xA: return make(K_FP_MAC, 0); /* VMLA/VNMLA/VFNMA/VFMA */
        case 0x8: return make(K_FP_DIV, 0);                              /* VDIV */
        case 0xB: return make((h1 & 0xF) == 1 && (h2 & 0xC0) == 0xC0 ? K_FP_DIV : K_FP, 0); /* VSQRT */
        default: return make(K_FP, 0);                                   /* VADD, VSUB, VMUL, VNMUL */
        }
    }
    if ((h1 & 0x0E00) != 0x0C00) return make(K_UNKNOWN, 0);
    if ((h1 & 0x01E0) == 0x0040) return make(K_FP_MOV2, 0);              /* VMOV two core regs */
    if ((h1 & 0x0120) == 0x0100) return make(K_FP_LDST, 0);              /* VLDR, VSTR */
    return make(K_FP_MULTI, h2 & 0xFF);                                  /* VLDM, VSTM, VPUSH, VPOP */
}

static struct decoded decode_multiply(unsigned h1, unsigned h2)
{
    unsigned op1 = (h1 >> 4) & 7;
    if ((h1 & 0xFF80) == 0xFB00) {                                       /* 32-bit products */
        if (op1 == 0 && ((h2 >> 4) & 3) == 0) return make((h2 >> 12) == 0xF ? K_MUL : K_MLA, 0);
        if (op1 == 0 && ((h2 >> 4) & 3) == 1) return make(K_MLA, 0);     /* MLS */
        return make(K_MUL, 0);                                           /* SMLAxy, SMLAD, SMMLA, ... */
    }
    if ((op1 == 1 || op1 == 3) && ((h2 >> 4) & 0xF) == 0xF) return make(K_DIV, 0);
    return make(K_MUL, 0);                                               /* SMULL, SMLAL, SMLALD, ... */
}

static struct decoded decode32(unsigned h1, unsigned h2)
{
    if ((h1 & 0xEC00) == 0xEC00) return decode_fp(h1, h2);
    if ((h1 & 0xFE40) == 0xE800) return make(K_MULTI, (unsigned)__builtin_popcount(h2 & 0xFFFF));
    if ((h1 & 0xFE40) == 0xE840) {                                       /* dual, exclusive, TBB/TBH */
        unsigned op1 = (h1 >> 7) & 3, op2 = (h1 >> 4) & 3;
        if (op1 == 1 && op2 == 1 && ((h2 >> 4) & 0xF) <= 1) return make(K_TABLE, 0);
        if (op1 <= 1 && op2 <= 1) return make(op2 ? K_LOAD : K_STORE, 0); /* LDREX*, STREX* */
        return make(K_DUAL, 0);
    }
    if ((h1 & 0xFE00) == 0xEA00) return make(K_ALU, 0);                  /* shifted register */
    if ((h1 & 0xF800) == 0xF000) {
        if (!(h2 & 0x8000)) return make(K_ALU, 0);                       /* immediates */
        if ((h2 & 0x5000) == 0x0000 && ((h1 >> 7) & 7) == 7) return make(K_MISC, 0); /* MSR, MRS, barriers */
        if ((h2 & 0x5000) == 0x4000) return make(K_MISC, 0);             /* UDF / BLX (not on M) */
        return make(K_BRANCH, 0);                                        /* B<c>.W, B.W, BL */
    }
    if ((h1 & 0xFE00) == 0xF800) return make(h1 & 0x10 ? K_LOAD : K_STORE, 0);
    if ((h1 & 0xFF00) == 0xFA00) return make(K_ALU, 0);                  /* register, SIMD, misc */
    if ((h1 & 0xFF00) == 0xFB00) return decode_multiply(h1, h2);
    return make(K_UNKNOWN, 0);
}

/* Bytes of the Thumb instruction at p: 4 if its first halfword opens a 32-bit encoding. The
 * plugin API's size can say 4 for a 16-bit instruction at the end of a page: QEMU reads the next
 * halfword there to decide whether the instruction crosses the page. */
static size_t thumb_size(const uint8_t *p)
{
    return p[1] >= 0xE8 ? 4 : 2;
}

static struct decoded decode(const uint8_t *p)
{
    unsigned h1 = (unsigned)p[0] | (unsigned)p[1] << 8;
    if (thumb_size(p) == 2) return decode16(h1);
    return decode32(h1, (unsigned)p[2] | (unsigned)p[3] << 8);
}

static unsigned cycles_of(struct decoded d)
{
    unsigned c = KIND_CYCLES[d.kind];
    return d.kind == K_MULTI || d.kind == K_FP_MULTI ? c + d.regs : c;
}

static bool is_single(enum kind k)
{
    return k == K_LOAD || k == K_STORE;
}

/* ---- counting ---- */
struct block {
    uint64_t pc;
    size_t n;
    uint64_t *next_pc; /* per instruction: the pc after it */
    uint8_t *kind;
    uint64_t spent;      /* cycles of its instructions (profile=) */
    struct block *older; /* every translated block, for the profile */
};

static uint64_t insns, cycles, per_kind[K_COUNT];
static const struct block *prev;
static uint64_t prev_start; /* `insns` when `prev` began */
static uint64_t mark_pc = UINT64_MAX;
static FILE *out;
static FILE *profile;        /* profile=FILE: cycles per translated block, written at exit */
static struct block *blocks; /* newest first */

static void block_start(unsigned int vcpu, void *udata)
{
    const struct block *cur = udata;
    (void)vcpu;
    if (prev != NULL) {
        /* How far `prev` got: all of it, or up to an instruction QEMU restarted (I/O, fault). */
        uint64_t done = insns - prev_start;
        if (done >= 1 && done <= prev->n) {
            uint64_t fall = prev->next_pc[done - 1];
            if (done == prev->n && cur->pc != fall) {
                cycles += TAKEN_BRANCH_CYCLES;
            } else if (cur->pc == fall && prev->kind[done - 1] == K_LOAD && is_single(cur->kind[0])) {
                cycles -= 1; /* pipelined behind the load before it */
            }
        }
    }
    prev = cur;
    prev_start = insns;
}

static void at_mark(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (out != NULL) {
        fprintf(out, "mark %llu %llu\n", (unsigned long long)insns, (unsigned long long)cycles);
        fflush(out);
    }
}

static void translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct block *b = calloc(1, sizeof *b);
    b->pc = qemu_plugin_tb_vaddr(tb);
    b->n = n;
    b->next_pc = calloc(n ? n : 1, sizeof *b->next_pc);
    b->kind = calloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        const uint8_t *bytes = qemu_plugin_insn_data(insn);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        size_t size = qemu_plugin_insn_size(insn) < 2 ? 0 : thumb_size(bytes);
        struct decoded d = size ? decode(bytes) : make(K_UNKNOWN, 0);
        unsigned c = cycles_of(d);
        if (i > 0 && is_single(d.kind) && b->kind[i - 1] == K_LOAD) {
            c -= 1; /* pipelined behind the load before it */
        }
        b->kind[i] = (uint8_t)d.kind;
        b->next_pc[i] = pc + size;
        if (pc == mark_pc) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, at_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &cycles, c);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &per_kind[d.kind], 1);
        if (profile != NULL) {
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &b->spent, c);
        }
    }
    b->older = blocks;
    blocks = b;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, block_start, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    if (profile != NULL) {
        /* Instruction cycles only: a taken branch's refill stays in the totals. */
        for (const struct block *b = blocks; b != NULL; b = b->older) {
            if (b->spent) fprintf(profile, "%#llx %llu\n", (unsigned long long)b->pc, (unsigned long long)b->spent);
        }
        fclose(profile);
        profile = NULL;
    }
    if (out == NULL) return;
    fprintf(out, "total %llu %llu\n", (unsigned long long)insns, (unsigned long long)cycles);
    for (int k = 0; k < K_COUNT; k++) {
        fprintf(out, "class %s %llu\n", KIND_NAMES[k], (unsigned long long)per_kind[k]);
    }
    fclose(out);
    out = NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out = fopen(argv[i] + 4, "w");
            if (out == NULL) {
                fprintf(stderr, "m4cycles: cannot write %s\n", argv[i] + 4);
                return -1;
            }
        } else if (strncmp(argv[i], "profile=", 8) == 0) {
            profile = fopen(argv[i] + 8, "w");
            if (profile == NULL) {
                fprintf(stderr, "m4cycles: cannot write %s\n", argv[i] + 8);
                return -1;
            }
        } else if (strncmp(argv[i], "mark=", 5) == 0) {
            mark_pc = strtoull(argv[i] + 5, NULL, 0) & ~1ull; /* a Thumb function's address has bit 0 set */
        } else {
            fprintf(stderr, "m4cycles: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translate);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
